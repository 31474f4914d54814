"""Control signals: SIGUSR1 = checkpoint and continue; SIGUSR2/SIGTERM = checkpoint and stop (exit 75).

The signals are blocked in every thread (block() runs before torch starts any thread, and threads
inherit the mask) and collected synchronously with sigtimedwait at each global-step boundary.
An asynchronous handler would interrupt whatever system call the receiving thread is in; torch's
rendezvous (TCPStore) and gloo fail with "Interrupted system call" when that happens.
The request is then agreed with the other workers (all-reduce MAX) so all checkpoint the same step.
"""

from __future__ import annotations

import signal

NONE = 0
CHECKPOINT = 1
CHECKPOINT_AND_STOP = 2

_SIGNAL_REQUESTS = {
    signal.SIGUSR1: CHECKPOINT,
    signal.SIGUSR2: CHECKPOINT_AND_STOP,
    signal.SIGTERM: CHECKPOINT_AND_STOP,
}


class ControlRequests:
    def __init__(self) -> None:
        self.pending = NONE

    def block(self) -> "ControlRequests":
        """Hold the control signals pending until take(); call before any thread exists."""
        signal.pthread_sigmask(signal.SIG_BLOCK, set(_SIGNAL_REQUESTS))
        return self

    def request(self, level: int) -> None:
        self.pending = max(self.pending, level)

    def take(self) -> int:
        """Collect the signals received so far; return and clear the strongest request."""
        while True:
            info = signal.sigtimedwait(set(_SIGNAL_REQUESTS), 0)
            if info is None:
                break
            self.request(_SIGNAL_REQUESTS[signal.Signals(info.si_signo)])
        level, self.pending = self.pending, NONE
        return level
