"""Which samples each virtual rank reads: exactly what rank v of maxP gets from torch's DistributedSampler.

The shuffled epoch order depends only on (seed, epoch), so one worker computes it once and serves
all of its ESTs from it (data loading shared per worker). A global step is one mini-batch per EST,
so the sampler position is a pure function of the global step (see position_of_step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List

import torch


@dataclass(frozen=True)
class SamplerPosition:
    epoch: int
    batch_in_epoch: int


class VirtualRankSampler:
    """DistributedSampler(shuffle=True, drop_last=False) semantics, for every rank at once."""

    def __init__(self, dataset_size: int, num_replicas: int, seed: int, batch_size: int) -> None:
        if dataset_size < 1 or num_replicas < 1 or batch_size < 1:
            raise ValueError("dataset_size, num_replicas and batch_size must be >= 1")
        self.dataset_size = dataset_size
        self.num_replicas = num_replicas
        self.seed = seed
        self.batch_size = batch_size
        self.num_samples = math.ceil(dataset_size / num_replicas)  # per rank, after padding
        self.total_size = self.num_samples * num_replicas
        self.batches_per_epoch = math.ceil(self.num_samples / batch_size)  # DataLoader(drop_last=False)
        self._orders: Dict[int, List[int]] = {}

    def epoch_order(self, epoch: int) -> List[int]:
        """The padded, shuffled order of one epoch (cached for the current epoch only)."""
        order = self._orders.get(epoch)
        if order is None:
            generator = torch.Generator()
            generator.manual_seed(self.seed + epoch)
            order = torch.randperm(self.dataset_size, generator=generator).tolist()
            padding = self.total_size - len(order)
            if padding <= len(order):
                order += order[:padding]
            else:
                order += (order * math.ceil(padding / len(order)))[:padding]
            self._orders = {epoch: order}
        return order

    def rank_indices(self, vrank: int, epoch: int) -> List[int]:
        if not 0 <= vrank < self.num_replicas:
            raise ValueError(f"virtual rank {vrank} outside [0, {self.num_replicas})")
        return self.epoch_order(epoch)[vrank : self.total_size : self.num_replicas]

    def position_of_step(self, global_step: int) -> SamplerPosition:
        """Where the sampler stands before running global step `global_step` (0-based)."""
        epoch, batch = divmod(global_step, self.batches_per_epoch)
        return SamplerPosition(epoch=epoch, batch_in_epoch=batch)

    def batch_indices(self, vrank: int, global_step: int) -> List[int]:
        position = self.position_of_step(global_step)
        start = position.batch_in_epoch * self.batch_size
        return self.rank_indices(vrank, position.epoch)[start : start + self.batch_size]
