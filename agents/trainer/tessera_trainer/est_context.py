"""EST contexts: the per-virtual-rank RNG state swapped in and out around each EST's mini-batch.

A worker has one set of global RNGs (torch CPU, torch CUDA, Python `random`, NumPy). Before an EST
runs, its saved states are installed; afterwards the advanced states are captured back. So dropout
masks and anything user code draws from the global RNGs follow the EST, not the worker that runs
it. Each EST also owns a dedicated generator for data augmentation (the paper's per-EST data-worker
RNG state).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any, Dict, Optional

import torch

try:  # NumPy is optional: virtualised only when user code could use it.
    import numpy

    _numpy: Any = numpy
except ImportError:  # pragma: no cover - depends on the machine
    _numpy = None


def derive_seed(base_seed: int, vrank: int, stream: str) -> int:
    """Independent 32-bit seed per (job seed, virtual rank, RNG stream); stable across Python versions."""
    digest = hashlib.sha256(f"tessera:{base_seed}:{vrank}:{stream}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass
class GlobalRngState:
    torch_cpu: torch.Tensor
    torch_cuda: Optional[torch.Tensor]
    python_random: Any
    numpy: Any  # None when NumPy is not importable


def _uses_cuda(device: torch.device) -> bool:
    return device.type == "cuda"


def capture_global_rng(device: torch.device) -> GlobalRngState:
    return GlobalRngState(
        torch_cpu=torch.get_rng_state(),
        torch_cuda=torch.cuda.get_rng_state(device) if _uses_cuda(device) else None,
        python_random=random.getstate(),
        numpy=_numpy.random.get_state() if _numpy is not None else None,
    )


def restore_global_rng(state: GlobalRngState, device: torch.device) -> None:
    torch.set_rng_state(state.torch_cpu)
    if _uses_cuda(device) and state.torch_cuda is not None:
        torch.cuda.set_rng_state(state.torch_cuda, device)
    random.setstate(state.python_random)
    if _numpy is not None and state.numpy is not None:
        _numpy.random.set_state(state.numpy)


def seeded_global_rng(base_seed: int, vrank: int, device: torch.device) -> GlobalRngState:
    """The state a fresh EST starts from, without disturbing the worker's current global RNGs."""
    cpu = torch.Generator()
    cpu.manual_seed(derive_seed(base_seed, vrank, "torch"))
    cuda_state = None
    if _uses_cuda(device):
        cuda = torch.Generator(device=device)
        cuda.manual_seed(derive_seed(base_seed, vrank, "cuda"))
        cuda_state = cuda.get_state()
    python_state = random.Random(derive_seed(base_seed, vrank, "python")).getstate()
    numpy_state = None
    if _numpy is not None:
        numpy_state = _numpy.random.RandomState(derive_seed(base_seed, vrank, "numpy")).get_state()
    return GlobalRngState(cpu.get_state(), cuda_state, python_state, numpy_state)


@dataclass
class EstContext:
    vrank: int
    rng: GlobalRngState
    data_generator: torch.Generator

    @classmethod
    def fresh(cls, base_seed: int, vrank: int, device: torch.device) -> "EstContext":
        data_generator = torch.Generator()
        data_generator.manual_seed(derive_seed(base_seed, vrank, "data"))
        return cls(vrank=vrank, rng=seeded_global_rng(base_seed, vrank, device), data_generator=data_generator)

    def swap_in(self, device: torch.device) -> None:
        restore_global_rng(self.rng, device)

    def swap_out(self, device: torch.device) -> None:
        self.rng = capture_global_rng(device)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "vrank": self.vrank,
            "torch_cpu": self.rng.torch_cpu,
            "torch_cuda": self.rng.torch_cuda,
            "python_random": self.rng.python_random,
            "numpy": self.rng.numpy,
            "data_generator": self.data_generator.get_state(),
        }

    @classmethod
    def from_dict(cls, saved: Dict[str, Any], base_seed: int, device: torch.device) -> "EstContext":
        """Restore a checkpointed context. A stream the checkpoint lacks (e.g. CUDA state when the
        checkpoint was written on CPU) starts from its derived seed, so resuming stays deterministic."""
        vrank = int(saved["vrank"])
        fallback = seeded_global_rng(base_seed, vrank, device)
        rng = GlobalRngState(
            torch_cpu=saved["torch_cpu"],
            torch_cuda=saved["torch_cuda"] if saved.get("torch_cuda") is not None else fallback.torch_cuda,
            python_random=saved["python_random"],
            numpy=saved["numpy"] if saved.get("numpy") is not None else fallback.numpy,
        )
        data_generator = torch.Generator()
        data_generator.set_state(saved["data_generator"])
        return cls(vrank=vrank, rng=rng, data_generator=data_generator)
