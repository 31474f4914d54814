"""Per-EST contributions (gradients + BatchNorm running stats) and their reduction over virtual ranks.

Each EST's contribution is one flat fp32 vector: every parameter's gradient, then every floating
point buffer (BatchNorm running mean/var) as the EST's forward left it, in the model's registration
order. That order is fixed by the model definition — it plays the role of EasyScale's stored
gradient-bucket mapping, and is recorded in the checkpoint so a resume cannot silently change it.

D1 (canonical order): all contributions are gathered on every worker and summed in ascending
virtual-rank order, then divided by maxP. The result is the same float operations whatever the
layout, hence bitwise identical. Cost: each worker receives world_size x rows_per_worker vectors
(~maxP x model size) per step instead of ring all-reduce's ~2 x model size.

D0 (worker-local order): each worker sums its own ESTs in ascending order, then one all-reduce
sums the partials. Cheaper, deterministic for a fixed layout, but the float additions are
grouped by worker, so a different layout gives (slightly) different bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

import torch
import torch.distributed as dist
from torch import nn

from .layout import EstLayout


@dataclass(frozen=True)
class ContributionSpec:
    """Where each gradient and float buffer lives in the flat contribution vector."""

    parameter_names: Tuple[str, ...]
    buffer_names: Tuple[str, ...]
    sizes: Tuple[int, ...]  # parameters first, then buffers

    @classmethod
    def of(cls, model: nn.Module) -> "ContributionSpec":
        params = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
        buffers = [(name, b) for name, b in model.named_buffers() if b.is_floating_point()]
        return cls(
            parameter_names=tuple(name for name, _ in params),
            buffer_names=tuple(name for name, _ in buffers),
            sizes=tuple(t.numel() for _, t in params) + tuple(t.numel() for _, t in buffers),
        )

    @property
    def numel(self) -> int:
        return sum(self.sizes)


def _parameters(model: nn.Module, spec: ContributionSpec) -> List[nn.Parameter]:
    named = dict(model.named_parameters())
    return [named[name] for name in spec.parameter_names]


def _buffers(model: nn.Module, spec: ContributionSpec) -> List[torch.Tensor]:
    named = dict(model.named_buffers())
    return [named[name] for name in spec.buffer_names]


def pack_contribution(model: nn.Module, spec: ContributionSpec, out: torch.Tensor) -> None:
    """Copy the current gradients (zeros where a parameter got none) and float buffers into `out`."""
    offset = 0
    for param in _parameters(model, spec):
        n = param.numel()
        if param.grad is None:
            out[offset : offset + n].zero_()
        else:
            out[offset : offset + n].copy_(param.grad.detach().reshape(-1))
        offset += n
    for buffer in _buffers(model, spec):
        n = buffer.numel()
        out[offset : offset + n].copy_(buffer.detach().reshape(-1))
        offset += n


def unpack_average(model: nn.Module, spec: ContributionSpec, average: torch.Tensor) -> None:
    """Install the averaged vector: gradients into .grad, running stats into the buffers."""
    offset = 0
    with torch.no_grad():
        for param in _parameters(model, spec):
            n = param.numel()
            param.grad = average[offset : offset + n].reshape(param.shape).to(param.dtype).clone()
            offset += n
        for buffer in _buffers(model, spec):
            n = buffer.numel()
            buffer.copy_(average[offset : offset + n].reshape(buffer.shape))
            offset += n


def sum_in_order(rows: Sequence[torch.Tensor]) -> torch.Tensor:
    """((r0 + r1) + r2) + ... in fp32: the one order every reduction in this module is defined by."""
    total = rows[0].to(torch.float32).clone()
    for row in rows[1:]:
        total.add_(row)
    return total


class Aggregator:
    """Turns this worker's per-EST contribution rows into the global average over maxP virtual ranks."""

    def __init__(self, layout: EstLayout, rank: int, consistency: str, numel: int, device: torch.device) -> None:
        self.layout = layout
        self.rank = rank
        self.consistency = consistency
        self.local_count = len(layout.worker_ests[rank])
        # Per-EST gradient buffers: row i holds the contribution of this worker's i-th EST.
        self.local_rows = torch.zeros(layout.rows_per_worker, numel, dtype=torch.float32, device=device)
        self._gathered = [torch.empty_like(self.local_rows) for _ in range(layout.world_size)]
        self._locations = [layout.location(v) for v in range(layout.max_p)]

    def average(self) -> torch.Tensor:
        if self.consistency == "D1":
            return self._canonical_average()
        return self._worker_partial_average()

    def _canonical_average(self) -> torch.Tensor:
        if self.layout.world_size == 1:
            gathered = [self.local_rows]
        else:
            dist.all_gather(self._gathered, self.local_rows)
            gathered = self._gathered
        rows_by_vrank = [gathered[worker][slot] for worker, slot in self._locations]
        return sum_in_order(rows_by_vrank).div_(self.layout.max_p)

    def _worker_partial_average(self) -> torch.Tensor:
        partial = sum_in_order(self.local_rows[: self.local_count])
        if self.layout.world_size > 1:
            dist.all_reduce(partial, op=dist.ReduceOp.SUM)
        return partial.div_(self.layout.max_p)
