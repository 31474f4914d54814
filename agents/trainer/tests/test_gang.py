"""The gang: a worker whose peer is gone exits 76 (not a crash of its own), whatever the moment it notices."""

import tempfile
import unittest
from pathlib import Path

from .harness import DEFAULT_JOB_ARGS, JobRun, JobSpec, Worker

# The collective timeout (seconds) for the cases where nobody ever comes: the survivor can only learn it by waiting.
SHORT_TIMEOUT = ("--model", "small-cnn", "--batch-size", "8", "--collective-timeout", "3")


class GangTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tessera-gang-")
        self.directory = Path(self._tmp.name) / "ckpt"

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def assertGangBroken(self, worker: Worker, code: int, fragment: str) -> None:
        self.assertEqual(code, 76, "".join(worker.stderr))
        errors = worker.events("error")
        self.assertEqual(len(errors), 1, "".join(worker.stderr))
        self.assertIn("gang broken", errors[0]["message"])
        self.assertIn(fragment, errors[0]["message"])


class PeerLostTest(GangTestCase):
    def test_a_peer_killed_mid_run_makes_the_survivor_exit_76_at_once(self) -> None:
        # The default 60 s collective timeout: the rendezvous must not fail while a loaded machine imports torch, and
        # the survivor must notice the closed connection, not wait for the timeout.
        spec = JobSpec(self.directory, [[0, 1], [2, 3]], total_steps=100_000, job_args=DEFAULT_JOB_ARGS)
        with JobRun(spec) as run:
            run.rank0.wait_until(lambda w: len(w.events("progress")) >= 3)
            run.workers[1].kill()
            self.assertGangBroken(run.rank0, run.rank0.finish(30), "a peer is gone")
            self.assertEqual(run.rank0.events("finished"), [])

    def test_workers_of_two_generations_never_form_one_gang(self) -> None:
        # Same port, same world size: only the generation differs, so neither rendezvous completes (as when a peer
        # never comes at all).
        spec = JobSpec(self.directory, [[0, 1], [2, 3]], job_args=SHORT_TIMEOUT, rank_env={1: {"TESSERA_GENERATION": "1"}})
        with JobRun(spec) as run:
            codes = run.finish()
            for worker, code in zip(run.workers, codes):
                self.assertGangBroken(worker, code, "rendezvous at 127.0.0.1")
                self.assertEqual(worker.events("started"), [])


if __name__ == "__main__":
    unittest.main()
