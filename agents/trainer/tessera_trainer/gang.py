"""The gang: every worker of a job, on however many hosts. A collective (or the rendezvous) that fails means a
peer is gone — its process or its whole host — not that this worker is broken, so the worker exits 76 and the
host agent stops the job's part on its host rather than counting a crash; the control plane requeues the whole
gang (docs/trainer-protocol.md).

The rendezvous is a TCPStore on rank 0's host with the keys of one generation under their own prefix: a worker
of a stopping generation that reaches the next generation's store can never be counted in its rendezvous.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta
from typing import Iterator

import torch.distributed as dist


class GangBroken(Exception):
    """A peer of the gang failed or never came: exit code 76, not counted as this worker's crash."""


@contextmanager
def collective(what: str) -> Iterator[None]:
    """Runs one distributed operation; its failure (connection reset, timeout) becomes GangBroken."""
    try:
        yield
    except RuntimeError as error:
        raise GangBroken(f"{what} failed, a peer is gone: {error}") from error


def rendezvous(
    backend: str, master_addr: str, master_port: int, rank: int, world_size: int, generation: int, timeout: float
) -> None:
    """Joins the gang of this generation; GangBroken when not every worker arrives within `timeout`."""
    with collective(f"rendezvous at {master_addr}:{master_port} (generation {generation})"):
        store = dist.TCPStore(
            master_addr,
            master_port,
            world_size,
            rank == 0,
            timedelta(seconds=timeout),
            wait_for_workers=False,  # the process group's own barrier waits, on this generation's keys only
        )
        dist.init_process_group(
            backend=backend,
            store=dist.PrefixStore(f"tessera/g{generation}", store),
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=timeout),
        )
