"""Parse the protocol's TESSERA_* environment into a validated WorkerConfig (pure: no I/O).

Every error names the variable and the rule so the agent's logs explain an exit code 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Tuple
from urllib.parse import unquote, urlparse

from .errors import ConfigError

CONSISTENCY_LEVELS = ("D0", "D1")
DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class WorkerConfig:
    job_id: str
    generation: int
    rank: int
    world_size: int
    local_rank: int
    master_addr: Optional[str]
    master_port: Optional[int]
    max_p: int
    ests: Tuple[int, ...]  # this worker's virtual ranks, ascending
    total_steps: int
    checkpoint_uri: str
    checkpoint_dir: str  # local directory the URI points to
    resume_step: Optional[int]  # None = fresh start
    seed: int
    device: str  # "cpu" or "cuda"
    consistency: str  # "D0" or "D1"
    report_every: int
    checkpoint_every: int  # 0 = only on request (and at the final step)


def _raw(env: Mapping[str, str], name: str) -> Optional[str]:
    value = env.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _required(env: Mapping[str, str], name: str) -> str:
    value = _raw(env, name)
    if value is None:
        raise ConfigError(f"{name} is required but missing or empty")
    return value


def _int(name: str, text: str, minimum: Optional[int] = None) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise ConfigError(f"{name}={text!r} must be a base-10 integer") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={value} must be >= {minimum}")
    return value


def parse_ests(text: str, max_p: int, name: str = "TESSERA_ESTS") -> Tuple[int, ...]:
    """'0,2' -> (0, 2); each virtual rank in [0, max_p), no duplicates, at least one."""
    parts = [p.strip() for p in text.split(",")]
    if any(p == "" for p in parts):
        raise ConfigError(f"{name}={text!r} must be a comma-separated list of integers without empty items")
    vranks = [_int(name, p, minimum=0) for p in parts]
    for v in vranks:
        if v >= max_p:
            raise ConfigError(f"{name}={text!r}: virtual rank {v} must be < TESSERA_MAX_P ({max_p})")
    if len(set(vranks)) != len(vranks):
        raise ConfigError(f"{name}={text!r} must not repeat a virtual rank")
    return tuple(sorted(vranks))


def checkpoint_dir_from_uri(uri: str) -> str:
    """file:///abs/path -> /abs/path. Other schemes are rejected with the reason."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise ConfigError(f"TESSERA_CHECKPOINT_URI={uri!r}: file URIs must not name a host (use file:///abs/path)")
        path = unquote(parsed.path)
        if not path.startswith("/"):
            raise ConfigError(f"TESSERA_CHECKPOINT_URI={uri!r} must be an absolute path (file:///abs/path)")
        return path.rstrip("/") or "/"
    if parsed.scheme == "s3":
        raise ConfigError(
            f"TESSERA_CHECKPOINT_URI={uri!r}: s3:// is not supported by this trainer build; "
            "give it a file:// directory (the agent stages it to S3)"
        )
    raise ConfigError(f"TESSERA_CHECKPOINT_URI={uri!r} must use the file:// scheme")


def parse_worker_config(env: Mapping[str, str], cuda_available: bool) -> WorkerConfig:
    job_id = _required(env, "TESSERA_JOB_ID")
    generation = _int("TESSERA_GENERATION", _required(env, "TESSERA_GENERATION"), minimum=0)
    world_size = _int("TESSERA_WORLD_SIZE", _required(env, "TESSERA_WORLD_SIZE"), minimum=1)
    rank = _int("TESSERA_RANK", _required(env, "TESSERA_RANK"), minimum=0)
    if rank >= world_size:
        raise ConfigError(f"TESSERA_RANK={rank} must be < TESSERA_WORLD_SIZE ({world_size})")
    local_rank = _int("TESSERA_LOCAL_RANK", _required(env, "TESSERA_LOCAL_RANK"), minimum=0)

    master_addr = _raw(env, "TESSERA_MASTER_ADDR")
    port_text = _raw(env, "TESSERA_MASTER_PORT")
    master_port = _int("TESSERA_MASTER_PORT", port_text, minimum=1) if port_text is not None else None
    if master_port is not None and master_port > 65535:
        raise ConfigError(f"TESSERA_MASTER_PORT={master_port} must be <= 65535")
    if world_size > 1 and (master_addr is None or master_port is None):
        raise ConfigError("TESSERA_MASTER_ADDR and TESSERA_MASTER_PORT are required when TESSERA_WORLD_SIZE > 1")

    max_p_text = _raw(env, "TESSERA_MAX_P")
    max_p = _int("TESSERA_MAX_P", max_p_text, minimum=1) if max_p_text is not None else world_size
    if max_p < world_size:
        raise ConfigError(
            f"TESSERA_MAX_P={max_p} must be >= TESSERA_WORLD_SIZE ({world_size}): every worker needs at least one EST"
        )
    ests_text = _raw(env, "TESSERA_ESTS")
    ests = parse_ests(ests_text, max_p) if ests_text is not None else parse_ests(str(rank), max_p, "TESSERA_RANK")

    total_steps = _int("TESSERA_TOTAL_STEPS", _required(env, "TESSERA_TOTAL_STEPS"), minimum=1)
    checkpoint_uri = _required(env, "TESSERA_CHECKPOINT_URI")
    checkpoint_dir = checkpoint_dir_from_uri(checkpoint_uri)

    resume_text = _raw(env, "TESSERA_RESUME_STEP")
    resume_value = _int("TESSERA_RESUME_STEP", resume_text, minimum=-1) if resume_text is not None else -1
    if resume_value > total_steps:
        raise ConfigError(f"TESSERA_RESUME_STEP={resume_value} must be <= TESSERA_TOTAL_STEPS ({total_steps})")
    resume_step = None if resume_value == -1 else resume_value

    seed_text = _raw(env, "TESSERA_SEED")
    seed = _int("TESSERA_SEED", seed_text, minimum=0) if seed_text is not None else 0

    device = _raw(env, "TESSERA_DEVICE") or ("cuda" if cuda_available else "cpu")
    if device not in DEVICES:
        raise ConfigError(f"TESSERA_DEVICE={device!r} must be one of {', '.join(DEVICES)}")
    if device == "cuda" and not cuda_available:
        raise ConfigError("TESSERA_DEVICE=cuda but torch reports no usable CUDA device")

    consistency = _raw(env, "TESSERA_CONSISTENCY") or "D1"
    if consistency not in CONSISTENCY_LEVELS:
        raise ConfigError(f"TESSERA_CONSISTENCY={consistency!r} must be one of {', '.join(CONSISTENCY_LEVELS)}")

    report_text = _raw(env, "TESSERA_REPORT_EVERY")
    report_every = _int("TESSERA_REPORT_EVERY", report_text, minimum=1) if report_text is not None else 1
    every_text = _raw(env, "TESSERA_CHECKPOINT_EVERY")
    checkpoint_every = _int("TESSERA_CHECKPOINT_EVERY", every_text, minimum=0) if every_text is not None else 0

    return WorkerConfig(
        job_id=job_id,
        generation=generation,
        rank=rank,
        world_size=world_size,
        local_rank=local_rank,
        master_addr=master_addr,
        master_port=master_port,
        max_p=max_p,
        ests=ests,
        total_steps=total_steps,
        checkpoint_uri=checkpoint_uri,
        checkpoint_dir=checkpoint_dir,
        resume_step=resume_step,
        seed=seed,
        device=device,
        consistency=consistency,
        report_every=report_every,
        checkpoint_every=checkpoint_every,
    )
