"""Entry point the host agent runs: `python -m tessera_trainer.run --model small-cnn [job args]`.

Exit codes (protocol): 0 finished all steps; 75 checkpointed and stopped on request;
2 bad configuration (not retriable); 76 the gang is broken (a peer failed or never came: the agent
stops the job's part on this host and the control plane requeues the whole job); anything else = crash
(1 here; retriable).
"""

from __future__ import annotations

from .control import ControlRequests

# First, before torch (or anything else) starts a thread: every later thread inherits the mask,
# so a control signal can never interrupt a system call inside the rendezvous or a collective.
_CONTROLS = ControlRequests().block()

import os  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from typing import Mapping, Optional, Sequence  # noqa: E402

import torch  # noqa: E402

from .config import parse_worker_config  # noqa: E402
from .errors import ConfigError  # noqa: E402
from .gang import GangBroken  # noqa: E402
from .job_args import parse_job_args  # noqa: E402
from .reporting import Reporter, log  # noqa: E402
from .trainer import Outcome, Trainer  # noqa: E402

EXIT_FINISHED = 0
EXIT_CRASHED = 1
EXIT_BAD_CONFIG = 2
EXIT_STOPPED = 75
EXIT_GANG_BROKEN = 76


def main(argv: Optional[Sequence[str]] = None, environ: Optional[Mapping[str, str]] = None) -> int:
    # A signal that arrives during start-up stays pending until the first step boundary.
    controls = _CONTROLS
    log(f"pid {os.getpid()}: control signals blocked, served at global-step boundaries")
    reporter = Reporter()
    try:
        env = os.environ if environ is None else environ
        config = parse_worker_config(env, torch.cuda.is_available())
        global_batch = int(env["TESSERA_GLOBAL_BATCH_SIZE"]) if env.get("TESSERA_GLOBAL_BATCH_SIZE") else None
        job = parse_job_args(sys.argv[1:] if argv is None else argv, global_batch, config.max_p)
        outcome = Trainer(config, job, reporter, controls).run()
    except ConfigError as error:
        log(f"bad configuration: {error}")
        reporter.error(str(error))
        return EXIT_BAD_CONFIG
    except GangBroken as error:
        log(f"gang broken: {error}")
        reporter.error(f"gang broken: {error}")
        return EXIT_GANG_BROKEN
    except Exception as error:  # any crash: report it, let the agent retry with back-off
        traceback.print_exc(file=sys.stderr)
        reporter.error(f"{type(error).__name__}: {error}")
        return EXIT_CRASHED
    return EXIT_FINISHED if outcome is Outcome.FINISHED else EXIT_STOPPED


if __name__ == "__main__":
    sys.exit(main())
