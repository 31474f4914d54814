"""Checkpoint directory layout and its atomic, durable write (file:// directories).

    <root>/step-<S>/meta.json     extra state + what must match on resume (human-readable)
    <root>/step-<S>/state.pt      one copy of model (parameters + buffers), optimizer, LR scheduler
    <root>/step-<S>/est-<v>.pt    EST context of virtual rank v (RNG states), one file per EST
    <root>/step-<S>/COMPLETE      written last; a step directory without it is not a checkpoint

Everything is written into a hidden temporary sibling, fsynced, COMPLETE last, then the directory
is renamed into place and the parent fsynced: a crash at any point leaves either no step-<S> or a
complete one. Only worker rank 0 writes (it gathers the EST contexts first), so the directory never
mixes files from different writers.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional

import torch

from .errors import ConfigError

FORMAT_VERSION = 1
COMPLETE_MARKER = "COMPLETE"
META_FILE = "meta.json"
STATE_FILE = "state.pt"
_TEMP_PREFIX = ".tmp-step-"
_REPLACED_PREFIX = ".replaced-step-"


def step_dir_name(step: int) -> str:
    return f"step-{step}"


def est_file_name(vrank: int) -> str:
    return f"est-{vrank}.pt"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(path: Path, write: Callable[[Any], None]) -> None:
    with open(path, "wb") as handle:
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())


class CheckpointStore:
    def __init__(self, root_dir: str, root_uri: str) -> None:
        self.root = Path(root_dir)
        self.root_uri = root_uri.rstrip("/")

    def step_path(self, step: int) -> Path:
        return self.root / step_dir_name(step)

    def step_uri(self, step: int) -> str:
        return f"{self.root_uri}/{step_dir_name(step)}"

    def is_complete(self, step: int) -> bool:
        return (self.step_path(step) / COMPLETE_MARKER).is_file()

    def remove_abandoned_temp_dirs(self) -> None:
        """Leftovers of a writer that crashed. Safe: a job never runs two generations at once."""
        if not self.root.is_dir():
            return
        for entry in self.root.iterdir():
            if entry.name.startswith((_TEMP_PREFIX, _REPLACED_PREFIX)) and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)

    def write(
        self,
        step: int,
        meta: Mapping[str, Any],
        state: Mapping[str, Any],
        est_contexts: Mapping[int, Mapping[str, Any]],
    ) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        temp = self.root / f"{_TEMP_PREFIX}{step}-{os.getpid()}"
        if temp.exists():
            shutil.rmtree(temp)
        temp.mkdir()
        _write_durably(temp / STATE_FILE, lambda f: torch.save(dict(state), f))
        for vrank, context in sorted(est_contexts.items()):
            _write_durably(temp / est_file_name(vrank), lambda f, c=context: torch.save(dict(c), f))
        meta_text = json.dumps(dict(meta), indent=2, sort_keys=True) + "\n"
        _write_durably(temp / META_FILE, lambda f: f.write(meta_text.encode()))
        _write_durably(temp / COMPLETE_MARKER, lambda f: f.write(f"{step}\n".encode()))
        _fsync_dir(temp)

        final = self.step_path(step)
        replaced: Optional[Path] = None
        if final.exists():  # same step written again (e.g. re-run after a crash): swap it out
            replaced = self.root / f"{_REPLACED_PREFIX}{step}-{os.getpid()}"
            os.rename(final, replaced)
        os.rename(temp, final)
        _fsync_dir(self.root)
        if replaced is not None:
            shutil.rmtree(replaced, ignore_errors=True)
        return final

    def _complete_path(self, step: int) -> Path:
        path = self.step_path(step)
        if not self.is_complete(step):
            raise ConfigError(
                f"TESSERA_RESUME_STEP={step}: {path} is missing or incomplete (no {COMPLETE_MARKER} marker)"
            )
        return path

    def read_meta(self, step: int) -> Dict[str, Any]:
        path = self._complete_path(step) / META_FILE
        try:
            meta = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise ConfigError(f"{path}: unreadable checkpoint metadata ({error})") from None
        if meta.get("format") != FORMAT_VERSION:
            raise ConfigError(f"{path}: format {meta.get('format')!r} is not the supported {FORMAT_VERSION}")
        if meta.get("step") != step:
            raise ConfigError(f"{path}: records step {meta.get('step')!r}, expected {step}")
        return meta

    def read_state(self, step: int, device: torch.device) -> Dict[str, Any]:
        return torch.load(self._complete_path(step) / STATE_FILE, map_location=device)

    def read_est(self, step: int, vrank: int) -> Dict[str, Any]:
        path = self._complete_path(step) / est_file_name(vrank)
        if not path.is_file():
            raise ConfigError(f"{path}: missing EST context for virtual rank {vrank}")
        # RNG states stay on the CPU: torch.cuda.set_rng_state expects a CPU ByteTensor.
        return torch.load(path, map_location="cpu")
