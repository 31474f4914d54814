"""Protocol report lines: one JSON object per line on stdout. Logs go to stderr, never stdout."""

from __future__ import annotations

import json
import sys
from typing import IO, Any, Dict, Optional, Sequence


class Reporter:
    def __init__(self, stream: Optional[IO[str]] = None) -> None:
        self.stream = stream if stream is not None else sys.stdout

    def _emit(self, payload: Dict[str, Any]) -> None:
        self.stream.write(json.dumps(payload, separators=(",", ":")) + "\n")
        self.stream.flush()  # the agent reads line by line; never leave a report in a buffer

    def started(self, step: int, rank: int, ests: Sequence[int]) -> None:
        self._emit({"event": "started", "step": step, "rank": rank, "ests": list(ests)})

    def progress(self, step: int, step_time: float, samples_per_second: float, rank: int) -> None:
        self._emit(
            {
                "event": "progress",
                "step": step,
                "stepTime": round(step_time, 6),
                "samplesPerSecond": round(samples_per_second, 3),
                "rank": rank,
            }
        )

    def checkpoint(self, step: int, uri: str) -> None:
        self._emit({"event": "checkpoint", "step": step, "uri": uri})

    def finished(self, step: int) -> None:
        self._emit({"event": "finished", "step": step})

    def error(self, message: str) -> None:
        self._emit({"event": "error", "message": message})


def log(message: str) -> None:
    print(f"tessera-trainer: {message}", file=sys.stderr, flush=True)
