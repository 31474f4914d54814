"""Synthetic, deterministic image-classification data (no downloads) and the per-worker batch loader."""

from __future__ import annotations

from typing import Tuple

import torch

from .sampler import VirtualRankSampler


class SyntheticImageDataset:
    """Class prototypes plus per-sample noise, generated from `seed` on the CPU.

    Learnable (each class has a distinct mean image) yet noisy enough that training moves the
    weights every step. The same seed gives the same tensors on every machine.
    """

    def __init__(self, size: int, image_size: int, num_classes: int, seed: int, channels: int = 3) -> None:
        generator = torch.Generator()
        generator.manual_seed(seed)
        prototypes = torch.randn(num_classes, channels, image_size, image_size, generator=generator)
        self.labels = torch.randint(0, num_classes, (size,), generator=generator)
        noise = torch.randn(size, channels, image_size, image_size, generator=generator)
        self.images = prototypes[self.labels] + 0.8 * noise

    def __len__(self) -> int:
        return int(self.labels.shape[0])


def augment(images: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Random horizontal flip and pixel jitter drawn from the EST's own data generator."""
    flip = torch.rand(images.shape[0], generator=generator) < 0.5
    out = torch.where(flip[:, None, None, None], images.flip(-1), images)
    return out + 0.05 * torch.randn(images.shape, generator=generator)


class SharedBatchLoader:
    """One loader per worker, serving its ESTs in turn.

    Loading is synchronous and in-process: a batch is produced only when its EST is about to run,
    so nothing is ever prefetched across a global-step boundary and the loader needs no queue
    state in the checkpoint — only the sampler position (a function of the step) and each EST's
    data-generator state (part of its EST context).
    """

    def __init__(self, dataset: SyntheticImageDataset, sampler: VirtualRankSampler, device: torch.device) -> None:
        if sampler.dataset_size != len(dataset):
            raise ValueError("sampler and dataset disagree on the dataset size")
        self.dataset = dataset
        self.sampler = sampler
        self.device = device

    def batch(
        self, vrank: int, global_step: int, generator: torch.Generator
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        index = torch.tensor(self.sampler.batch_indices(vrank, global_step), dtype=torch.long)
        images = augment(self.dataset.images[index], generator)
        return images.to(self.device), self.dataset.labels[index].to(self.device)
