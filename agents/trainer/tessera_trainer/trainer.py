"""One worker process: rendezvous, resume, time-slice its ESTs each global step, checkpoint on request.

Global step (every worker, in lockstep):
  1. snapshot the model buffers (BatchNorm running stats);
  2. for each local EST in ascending virtual rank: reset buffers to the snapshot, swap in its RNG
     context, load its mini-batch, forward + backward, copy gradients and the buffers its forward
     produced into its contribution row, swap its RNG context out;
  3. average the contributions over all maxP virtual ranks (aggregation.py) -> gradients and
     running stats; one optimizer step and one LR-scheduler step;
  4. agree on pending control requests (all-reduce MAX), then checkpoint/stop as agreed.
Every EST therefore sees the same parameters and buffers at the start of a step, exactly like a
DDP rank, whichever worker runs it.
"""

from __future__ import annotations

import enum
import time
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.distributed as dist
import torch.nn.functional as F

from . import control
from .aggregation import Aggregator, ContributionSpec, pack_contribution, unpack_average
from .checkpoint import FORMAT_VERSION, CheckpointStore
from .config import WorkerConfig
from .data import SharedBatchLoader, SyntheticImageDataset
from .determinism import configure_determinism
from .errors import ConfigError
from .gang import GangBroken, collective, rendezvous
from .est_context import EstContext
from .job_args import JobArgs, trajectory_settings
from .layout import EstLayout
from .models import build_model
from .reporting import Reporter, log
from .sampler import VirtualRankSampler

_CONSISTENCY_CODES = {"D0": 0, "D1": 1}
_PLACEMENT_SETTINGS = ("TESSERA_RESUME_STEP", "TESSERA_GENERATION")


class Outcome(enum.Enum):
    FINISHED = "finished"  # exit 0
    STOPPED = "stopped"  # checkpointed on request, exit 75


def select_device(config: WorkerConfig) -> torch.device:
    """The agent normally narrows CUDA_VISIBLE_DEVICES to the worker's GPU: then it is cuda:0.
    When several GPUs are visible, the worker takes cuda:<TESSERA_LOCAL_RANK>."""
    if config.device != "cuda":
        return torch.device("cpu")
    visible = torch.cuda.device_count()
    index = 0 if visible == 1 else config.local_rank
    if index >= visible:
        raise ConfigError(f"TESSERA_LOCAL_RANK={config.local_rank} but only {visible} CUDA devices are visible")
    return torch.device("cuda", index)


class Trainer:
    def __init__(
        self,
        config: WorkerConfig,
        job: JobArgs,
        reporter: Reporter,
        controls: control.ControlRequests,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.config = config
        self.job = job
        self.reporter = reporter
        self.controls = controls
        self.clock = clock
        self.device = select_device(config)
        self.distributed = config.world_size > 1

    # ---------------------------------------------------------------- lifecycle
    def run(self) -> Outcome:
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
        configure_determinism(self.device, self.job.torch_threads)
        if self.distributed:
            rendezvous(
                "nccl" if self.device.type == "cuda" else "gloo",
                self.config.master_addr or "",
                self.config.master_port or 0,
                self.config.rank,
                self.config.world_size,
                self.config.generation,
                self.job.collective_timeout,
            )
        try:
            self._agree_on_settings()
            self.layout = self._agree_on_layout()
            self._build()
            return self._train()
        finally:
            if self.distributed and dist.is_initialized():
                dist.destroy_process_group()

    # ---------------------------------------------------------------- agreement between workers
    def _all_gather_ints(self, values: List[int]) -> List[List[int]]:
        local = torch.tensor(values, dtype=torch.int64, device=self.device)
        gathered = [torch.empty_like(local) for _ in range(self.config.world_size)]
        with collective("all_gather"):
            dist.all_gather(gathered, local)
        return [t.tolist() for t in gathered]

    def _agree_on_settings(self) -> None:
        """Workers started with different maxP/seed/consistency/resume step would diverge silently."""
        if not self.distributed:
            return
        c = self.config
        names = ["TESSERA_MAX_P", "TESSERA_SEED", "TESSERA_CONSISTENCY", "TESSERA_RESUME_STEP", "TESSERA_GENERATION"]
        mine = [
            c.max_p,
            c.seed,
            _CONSISTENCY_CODES[c.consistency],
            -1 if c.resume_step is None else c.resume_step,
            c.generation,
        ]
        for worker, theirs in enumerate(self._all_gather_ints(mine)):
            for name, a, b in zip(names, mine, theirs):
                if a != b:
                    message = f"{name} differs between worker rank {c.rank} ({a}) and worker rank {worker} ({b})"
                    # Hosts that started their parts at different moments may disagree on these; a new placement
                    # of the whole gang gets one value. The others are the job's own settings: not retriable.
                    if name in _PLACEMENT_SETTINGS:
                        raise GangBroken(message)
                    raise ConfigError(message)

    def _agree_on_layout(self) -> EstLayout:
        c = self.config
        if not self.distributed:
            return EstLayout.validated(c.max_p, [c.ests])
        mask = [1 if v in c.ests else 0 for v in range(c.max_p)]
        masks = self._all_gather_ints(mask)
        return EstLayout.validated(c.max_p, [[v for v, on in enumerate(m) if on] for m in masks])

    def _agree_on_request(self, local_request: int) -> int:
        if not self.distributed:
            return local_request
        flag = torch.tensor([local_request], dtype=torch.int64, device=self.device)
        with collective("all_reduce of control requests"):
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return int(flag.item())

    # ---------------------------------------------------------------- construction and resume
    def _build(self) -> None:
        c, job = self.config, self.job
        torch.manual_seed(c.seed)  # identical initial weights on every worker
        self.model = build_model(job.model, job.num_classes).to(self.device)
        self.optimizer = torch.optim.SGD(
            self.model.parameters(), lr=job.lr, momentum=job.momentum, weight_decay=job.weight_decay
        )
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=job.lr_step_size, gamma=job.lr_gamma)
        dataset = SyntheticImageDataset(job.dataset_size, job.image_size, job.num_classes, job.data_seed)
        self.sampler = VirtualRankSampler(len(dataset), c.max_p, c.seed, job.batch_size)
        self.loader = SharedBatchLoader(dataset, self.sampler, self.device)
        self.spec = ContributionSpec.of(self.model)
        self.store = CheckpointStore(c.checkpoint_dir, c.checkpoint_uri)
        if c.rank == 0:
            self.store.remove_abandoned_temp_dirs()

        self.step = 0
        if c.resume_step is None:
            self.contexts: Dict[int, EstContext] = {v: EstContext.fresh(c.seed, v, self.device) for v in c.ests}
        else:
            self._resume(c.resume_step)
        self.aggregator = Aggregator(self.layout, c.rank, c.consistency, self.spec.numel, self.device)

    def _resume(self, step: int) -> None:
        c = self.config
        meta = self.store.read_meta(step)
        where = f"checkpoint {self.store.step_path(step)}"
        expected = {
            "maxP": c.max_p,
            "seed": c.seed,
            "job": trajectory_settings(self.job),
            "parameterNames": list(self.spec.parameter_names),
            "bufferNames": list(self.spec.buffer_names),
        }
        for key, value in expected.items():
            if meta.get(key) != value:
                raise ConfigError(f"{where}: {key} is {meta.get(key)!r} but this run has {value!r}")
        position = self.sampler.position_of_step(step)
        if (meta.get("epoch"), meta.get("batchInEpoch")) != (position.epoch, position.batch_in_epoch):
            raise ConfigError(f"{where}: sampler position does not match step {step}")
        if meta.get("consistency") != c.consistency:
            log(f"warning: {where} was written under {meta.get('consistency')}, resuming under {c.consistency}")

        state = self.store.read_state(step, self.device)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.contexts = {}
        for v in c.ests:
            context = EstContext.from_dict(self.store.read_est(step, v), c.seed, self.device)
            if context.vrank != v:
                raise ConfigError(f"{where}: EST file for virtual rank {v} holds virtual rank {context.vrank}")
            self.contexts[v] = context
        self.step = step

    # ---------------------------------------------------------------- training
    def _train(self) -> Outcome:
        c = self.config
        self.reporter.started(self.step, c.rank, c.ests)
        window_time, window_samples, window_steps = 0.0, 0, 0
        while self.step < c.total_steps:
            began = self.clock()
            samples, losses = self._run_local_ests()
            with collective("gradient aggregation"):
                average = self.aggregator.average()
            unpack_average(self.model, self.spec, average)
            self.optimizer.step()
            self.scheduler.step()
            request = self._agree_on_request(self.controls.take())
            self.step += 1
            window_time += self.clock() - began
            window_samples += samples
            window_steps += 1

            if self.step % c.report_every == 0 or self.step == c.total_steps:
                self.reporter.progress(
                    self.step, window_time / window_steps, window_samples / max(window_time, 1e-9), c.rank
                )
                log(f"rank {c.rank} step {self.step} local loss {sum(losses) / len(losses):.6f}")
                window_time, window_samples, window_steps = 0.0, 0, 0

            final = self.step == c.total_steps
            periodic = c.checkpoint_every > 0 and self.step % c.checkpoint_every == 0
            if final or periodic or request != control.NONE:
                self._checkpoint()
            if final:
                break
            if request == control.CHECKPOINT_AND_STOP:
                return Outcome.STOPPED
        self.reporter.finished(self.step)
        return Outcome.FINISHED

    def _run_local_ests(self) -> Tuple[int, List[float]]:
        model = self.model
        model.train()
        buffers = list(model.buffers())
        at_step_start = [b.detach().clone() for b in buffers]
        samples, losses = 0, []
        for slot, vrank in enumerate(self.config.ests):
            if slot > 0:  # every EST starts from the same running stats, like a DDP rank would
                with torch.no_grad():
                    for buffer, saved in zip(buffers, at_step_start):
                        buffer.copy_(saved)
            context = self.contexts[vrank]
            context.swap_in(self.device)
            images, labels = self.loader.batch(vrank, self.step, context.data_generator)
            self.optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            pack_contribution(model, self.spec, self.aggregator.local_rows[slot])
            context.swap_out(self.device)
            samples += int(labels.shape[0])
            losses.append(float(loss.detach()))
        return samples, losses

    # ---------------------------------------------------------------- checkpoint
    def _checkpoint(self) -> None:
        c = self.config
        local = {v: self.contexts[v].to_dict() for v in c.ests}
        if self.distributed:
            gathered: List[Optional[Dict[int, dict]]] = [None] * c.world_size
            with collective("checkpoint gather"):
                dist.all_gather_object(gathered, local)
        else:
            gathered = [local]
        if c.rank == 0:
            contexts = {v: ctx for part in gathered if part is not None for v, ctx in part.items()}
            position = self.sampler.position_of_step(self.step)
            meta = {
                "format": FORMAT_VERSION,
                "jobId": c.job_id,
                "generation": c.generation,
                "step": self.step,
                "epoch": position.epoch,
                "batchInEpoch": position.batch_in_epoch,
                "maxP": c.max_p,
                "seed": c.seed,
                "consistency": c.consistency,
                "job": trajectory_settings(self.job),
                "parameterNames": list(self.spec.parameter_names),
                "bufferNames": list(self.spec.buffer_names),
                "writtenBy": {"worldSize": c.world_size, "ests": [list(e) for e in self.layout.worker_ests]},
                "torchVersion": torch.__version__,
            }
            state = {
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(),
            }
            self.store.write(self.step, meta, state, contexts)
            self.reporter.checkpoint(self.step, self.store.step_uri(self.step))
        if self.distributed:
            with collective("checkpoint barrier"):
                dist.barrier()  # no worker moves on (or exits 75) before the checkpoint is durable
