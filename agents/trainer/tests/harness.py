"""Launch trainer workers the way the host agent does (env variables, gloo on 127.0.0.1) and read their state.

Every process is started with a deadline and killed (by its own pid) if it outlives it; callers use
`with JobRun(...)` or `run_job(...)`, which always reap their processes.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import torch

TRAINER_ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_JOB_ARGS = ("--model", "small-cnn", "--batch-size", "8", "--collective-timeout", "60")
DEADLINE_SECONDS = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def base_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        {
            "PYTHONPATH": str(TRAINER_ROOT),
            "PYTHONUNBUFFERED": "1",
            "OMP_NUM_THREADS": "1",
            "GLOO_SOCKET_IFNAME": "lo",  # keep gloo's data connections on loopback
            "CUDA_VISIBLE_DEVICES": "",  # these tests pin the CPU path even on a GPU machine
        }
    )
    return env


def _born_with_pending(signum: int) -> Callable[[], None]:
    """Run in the child between fork and exec: the signal is blocked and already pending when the trainer starts.

    The mask and the pending set survive exec, so the request is there before the trainer's first step boundary
    whatever the machine's load; a signal sent after a "ready" log line could land after that boundary instead.
    """

    def block_and_raise() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signum})
        os.kill(os.getpid(), signum)

    return block_and_raise


class Worker:
    """One trainer process; its stdout report lines and stderr log lines are collected as they arrive."""

    def __init__(self, env: Mapping[str, str], job_args: Sequence[str], pending_signal: Optional[int] = None) -> None:
        self.rank = int(env.get("TESSERA_RANK", "0"))
        self.process = subprocess.Popen(
            [PYTHON, "-m", "tessera_trainer.run", *job_args],
            cwd=TRAINER_ROOT,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=None if pending_signal is None else _born_with_pending(pending_signal),
        )
        self.reports: List[Dict[str, Any]] = []
        self.stdout_other: List[str] = []
        self.stderr: List[str] = []
        self._changed = threading.Condition()
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, True), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, False), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: Any, is_stdout: bool) -> None:
        for line in stream:
            with self._changed:
                if is_stdout:
                    try:
                        self.reports.append(json.loads(line))
                    except ValueError:
                        self.stdout_other.append(line)
                else:
                    self.stderr.append(line)
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def wait_until(self, predicate: Callable[["Worker"], bool], timeout: float = DEADLINE_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(self):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.process.poll() is not None and not any(r.is_alive() for r in self._readers)):
                    raise AssertionError(f"rank {self.rank}: condition not reached; stderr:\n{''.join(self.stderr)}")
                self._changed.wait(min(remaining, 0.5))

    def wait_ready(self) -> None:
        """Control signals are blocked (the first log line), so a signal is safe to send."""
        self.wait_until(lambda w: any("control signals blocked" in line for line in w.stderr))

    def events(self, name: str) -> List[Dict[str, Any]]:
        return [r for r in list(self.reports) if r.get("event") == name]

    def finish(self, timeout: float) -> int:
        try:
            code = self.process.wait(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"rank {self.rank}: still running at the deadline; stderr:\n{''.join(self.stderr)}")
        finally:
            self._close_pipes()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._close_pipes()

    def _close_pipes(self) -> None:
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed and not any(r.is_alive() for r in self._readers):
                stream.close()


@dataclass
class JobSpec:
    checkpoint_dir: Path
    layout: Sequence[Sequence[int]]  # per worker rank: its virtual ranks
    max_p: int = 4
    total_steps: int = 30
    resume_step: Optional[int] = None
    seed: int = 0
    consistency: str = "D1"
    checkpoint_every: int = 0
    report_every: int = 1
    generation: int = 0
    job_args: Sequence[str] = DEFAULT_JOB_ARGS
    extra_env: Mapping[str, str] = field(default_factory=dict)
    drop_env: Sequence[str] = ()
    rank_env: Mapping[int, Mapping[str, str]] = field(default_factory=dict)  # overrides for one worker
    pending_signal: Optional[int] = None  # a control signal every worker has pending from birth


def worker_env(spec: JobSpec, rank: int, port: int) -> Dict[str, str]:
    """The protocol environment the host agent would give worker `rank`; extra_env may vary it per job."""
    env = base_env()
    env.update(
        {
            "TESSERA_JOB_ID": "job-test",
            "TESSERA_GENERATION": str(spec.generation),
            "TESSERA_RANK": str(rank),
            "TESSERA_WORLD_SIZE": str(len(spec.layout)),
            "TESSERA_LOCAL_RANK": str(rank),
            "TESSERA_MASTER_ADDR": "127.0.0.1",
            "TESSERA_MASTER_PORT": str(port),
            "TESSERA_MAX_P": str(spec.max_p),
            "TESSERA_ESTS": ",".join(str(v) for v in spec.layout[rank]),
            "TESSERA_TOTAL_STEPS": str(spec.total_steps),
            "TESSERA_CHECKPOINT_URI": spec.checkpoint_dir.resolve().as_uri(),
            "TESSERA_RESUME_STEP": str(-1 if spec.resume_step is None else spec.resume_step),
            "TESSERA_SEED": str(spec.seed),
            "TESSERA_DEVICE": "cpu",
            "TESSERA_CONSISTENCY": spec.consistency,
            "TESSERA_REPORT_EVERY": str(spec.report_every),
            "TESSERA_CHECKPOINT_EVERY": str(spec.checkpoint_every),
        }
    )
    env.update(spec.extra_env)
    env.update(spec.rank_env.get(rank, {}))
    for name in spec.drop_env:
        env.pop(name, None)
    return env


class JobRun:
    """All workers of one job generation; use as a context manager so they are always reaped."""

    def __init__(self, spec: JobSpec) -> None:
        port = free_port()
        self.workers = [
            Worker(worker_env(spec, rank, port), spec.job_args, spec.pending_signal) for rank in range(len(spec.layout))
        ]

    def __enter__(self) -> "JobRun":
        return self

    def __exit__(self, *_exc: object) -> None:
        for worker in self.workers:
            worker.kill()

    @property
    def rank0(self) -> Worker:
        return self.workers[0]

    def signal_all_when_ready(self, signum: int) -> None:
        for worker in self.workers:
            worker.wait_ready()
        for worker in self.workers:
            os.kill(worker.process.pid, signum)

    def finish(self, timeout: float = DEADLINE_SECONDS) -> List[int]:
        deadline = time.monotonic() + timeout
        return [worker.finish(deadline - time.monotonic()) for worker in self.workers]

    def checkpoint_steps(self) -> List[int]:
        return [event["step"] for event in self.rank0.events("checkpoint")]

    def describe(self) -> str:
        return "\n".join(f"--- rank {w.rank} stderr:\n{''.join(w.stderr)}" for w in self.workers)


def run_job(spec: JobSpec, expect_codes: Optional[Sequence[int]] = None) -> JobRun:
    with JobRun(spec) as run:
        codes = run.finish()
        if expect_codes is not None and codes != list(expect_codes):
            raise AssertionError(f"exit codes {codes}, expected {list(expect_codes)}\n{run.describe()}")
    return run


# ------------------------------------------------------------------ reading and comparing checkpoints
def load_state(checkpoint_dir: Path, step: int) -> Dict[str, Any]:
    step_dir = checkpoint_dir / f"step-{step}"
    if not (step_dir / "COMPLETE").is_file():
        raise AssertionError(f"{step_dir} is not a complete checkpoint")
    return torch.load(step_dir / "state.pt", map_location="cpu")


def first_difference(a: Any, b: Any, path: str = "") -> Optional[str]:
    """None when `a` and `b` are bitwise identical (tensors compared byte for byte), else where they differ."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return f"{path}: tensor vs {type(b).__name__ if isinstance(a, torch.Tensor) else type(a).__name__}"
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path}: {a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
        if a.contiguous().numpy().tobytes() != b.contiguous().numpy().tobytes():
            differing = int((a.reshape(-1) != b.reshape(-1)).sum())
            return f"{path}: {differing} of {a.numel()} elements differ"
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(map(str, a))} vs {sorted(map(str, b))}"
        for key in a:
            found = first_difference(a[key], b[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"
