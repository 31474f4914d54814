"""Which worker runs which virtual rank, agreed by all workers after rendezvous (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Sequence, Tuple

from .errors import ConfigError


@dataclass(frozen=True)
class EstLayout:
    max_p: int
    worker_ests: Tuple[Tuple[int, ...], ...]  # index = worker rank; each tuple ascending

    @classmethod
    def validated(cls, max_p: int, worker_ests: Sequence[Sequence[int]]) -> "EstLayout":
        """Every virtual rank 0..max_p-1 must run on exactly one worker, every worker runs at least one."""
        owners: Dict[int, int] = {}
        for worker, vranks in enumerate(worker_ests):
            if len(vranks) == 0:
                raise ConfigError(f"TESSERA_ESTS: worker rank {worker} has no EST")
            for v in vranks:
                if not 0 <= v < max_p:
                    raise ConfigError(f"TESSERA_ESTS: worker rank {worker} lists virtual rank {v} outside [0, {max_p})")
                if v in owners:
                    raise ConfigError(
                        f"TESSERA_ESTS: virtual rank {v} is assigned to both worker ranks {owners[v]} and {worker}"
                    )
                owners[v] = worker
        missing = [v for v in range(max_p) if v not in owners]
        if missing:
            raise ConfigError(
                f"TESSERA_ESTS: virtual ranks {missing} of TESSERA_MAX_P={max_p} are assigned to no worker"
            )
        return cls(max_p=max_p, worker_ests=tuple(tuple(sorted(v)) for v in worker_ests))

    @property
    def world_size(self) -> int:
        return len(self.worker_ests)

    @property
    def rows_per_worker(self) -> int:
        """Rows each worker contributes to the gather (workers with fewer ESTs pad)."""
        return max(len(v) for v in self.worker_ests)

    def location(self, vrank: int) -> Tuple[int, int]:
        """(worker rank, slot within that worker's ascending EST list) of a virtual rank."""
        for worker, vranks in enumerate(self.worker_ests):
            if vrank in vranks:
                return worker, vranks.index(vrank)
        raise KeyError(vrank)
