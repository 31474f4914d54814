"""Process-wide switches for D0 (static determinism); D1 adds the canonical reduction (aggregation.py)."""

from __future__ import annotations

import os

import torch


def configure_determinism(device: torch.device, torch_threads: int) -> None:
    # cuBLAS reads this when it initialises; deterministic GEMMs need a fixed workspace.
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    # A fixed intra-op thread count fixes how CPU kernels split their reductions.
    torch.set_num_threads(torch_threads)
    torch.use_deterministic_algorithms(True)
    # No profiling-based kernel choice: the algorithm must not depend on timing.
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
