"""The job's own command-line settings (model, batch size, learning rate...), outside the protocol.

These are the hyper-parameters the user designed for maxP logical workers; they never change on
rescale. The ones that shape the training trajectory are stored in the checkpoint and must match
on resume (see TRAJECTORY_FIELDS).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import Dict, Optional, Sequence

from .errors import ConfigError
from .models import MODEL_NAMES


@dataclass(frozen=True)
class JobArgs:
    model: str
    batch_size: int  # per EST, like DDP's per-rank batch size
    lr: float
    momentum: float
    weight_decay: float
    lr_step_size: int  # StepLR period in global steps (independent of TESSERA_TOTAL_STEPS)
    lr_gamma: float
    dataset_size: int
    image_size: int
    num_classes: int
    data_seed: int
    torch_threads: int
    collective_timeout: float  # seconds for rendezvous and each collective


# Changing any of these between a checkpoint and its resume would change the result.
TRAJECTORY_FIELDS = (
    "model",
    "batch_size",
    "lr",
    "momentum",
    "weight_decay",
    "lr_step_size",
    "lr_gamma",
    "dataset_size",
    "image_size",
    "num_classes",
    "data_seed",
)


class _RaisingParser(argparse.ArgumentParser):
    """argparse exits with its own message; we want a ConfigError so the error report line is written."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(f"job arguments: {message}")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be >= 1")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0.0:  # also rejects NaN
        raise argparse.ArgumentTypeError(f"{text} must be a number >= 0")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0.0:
        raise argparse.ArgumentTypeError(f"{text} must be a number > 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _RaisingParser(prog="python -m tessera_trainer.run", description=__doc__)
    parser.add_argument("--model", required=True, choices=MODEL_NAMES)
    parser.add_argument(
        "--batch-size",
        type=_positive_int,
        default=None,
        help="mini-batch per EST; default: TESSERA_GLOBAL_BATCH_SIZE / maxP when the scheduler sets it, else 8",
    )
    parser.add_argument("--lr", type=_positive_float, default=0.05)
    parser.add_argument("--momentum", type=_non_negative_float, default=0.9)
    parser.add_argument("--weight-decay", type=_non_negative_float, default=5e-4)
    parser.add_argument("--lr-step-size", type=_positive_int, default=20)
    parser.add_argument("--lr-gamma", type=_positive_float, default=0.5)
    parser.add_argument("--dataset-size", type=_positive_int, default=256, help="synthetic samples")
    parser.add_argument("--image-size", type=_positive_int, default=12, help="synthetic image side (pixels)")
    parser.add_argument("--num-classes", type=_positive_int, default=10)
    parser.add_argument("--data-seed", type=int, default=1234, help="seed of the synthetic dataset")
    parser.add_argument(
        "--torch-threads",
        type=_positive_int,
        default=1,
        help="intra-op threads; every worker must use the same value for bitwise identity",
    )
    parser.add_argument("--collective-timeout", type=_positive_float, default=300.0, help="seconds")
    return parser


DEFAULT_BATCH_PER_EST = 8


def per_est_batch(global_batch: Optional[int], max_p: int) -> int:
    """The job's global batch over its logical size: the same for every worker count (docs/trainer-protocol.md).

    Rounded down (at least 1) when maxP does not divide it: maxP never changes, so neither does the result.
    """
    if global_batch is None:
        return DEFAULT_BATCH_PER_EST
    return max(1, global_batch // max_p)


def parse_job_args(
    argv: Optional[Sequence[str]], global_batch: Optional[int] = None, max_p: int = 1
) -> JobArgs:
    ns = build_parser().parse_args(list(argv) if argv is not None else None)
    if ns.batch_size is None:
        ns.batch_size = per_est_batch(global_batch, max_p)
    if ns.image_size < 4:
        raise ConfigError(f"job arguments: --image-size {ns.image_size} must be >= 4 (the CNN pools twice)")
    if ns.num_classes < 2:
        raise ConfigError(f"job arguments: --num-classes {ns.num_classes} must be >= 2")
    return JobArgs(**vars(ns))


def trajectory_settings(args: JobArgs) -> Dict[str, object]:
    all_fields = asdict(args)
    return {name: all_fields[name] for name in TRAJECTORY_FIELDS}

