"""Models a job can name with --model. Built after seeding, so every worker starts from the same weights."""

from __future__ import annotations

from typing import Callable, Dict

import torch
from torch import nn


class SmallCnn(nn.Module):
    """Two conv+BatchNorm blocks, global pooling, dropout, linear head.

    Tiny on purpose (about 1.5k parameters): it exercises every source of EST state the
    runtime must virtualise — dropout (RNG), BatchNorm (running-stat buffers), momentum SGD.
    """

    def __init__(self, num_classes: int, in_channels: int = 3) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 8, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.dropout = nn.Dropout(p=0.3)
        self.head = nn.Linear(16, num_classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        # Global average pooling as a plain mean: AdaptiveAvgPool2d's CUDA backward has no
        # deterministic kernel and would fail under torch.use_deterministic_algorithms.
        x = self.features(images).mean(dim=(2, 3))
        return self.head(self.dropout(x))


_FACTORIES: Dict[str, Callable[[int], nn.Module]] = {
    "small-cnn": lambda num_classes: SmallCnn(num_classes),
}
MODEL_NAMES = tuple(sorted(_FACTORIES))


def build_model(name: str, num_classes: int) -> nn.Module:
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(MODEL_NAMES)}") from None
    return factory(num_classes)
