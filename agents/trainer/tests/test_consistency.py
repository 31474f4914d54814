"""D1 consistency, end to end: separate worker processes over gloo on 127.0.0.1, maxP = 4, 30 steps.

The reference is 1 worker x 4 ESTs checkpointing every step; every other run's checkpoints must be
bitwise identical to the reference at the same step: parameters, BatchNorm buffers, optimizer
(momentum) and LR-scheduler state.
"""

import signal
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List

import torch

from .harness import JobRun, JobSpec, first_difference, load_state, run_job

MAX_P = 4
STEPS = 30
_reference: Dict[int, Dict[str, Any]] = {}
_tmp = tempfile.TemporaryDirectory(prefix="tessera-consistency-")


def setUpModule() -> None:
    directory = Path(_tmp.name) / "reference"
    run_job(JobSpec(directory, [[0, 1, 2, 3]], checkpoint_every=1), expect_codes=[0])
    for step in range(1, STEPS + 1):
        _reference[step] = load_state(directory, step)


def tearDownModule() -> None:
    _tmp.cleanup()


class ConsistencyTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.directory = Path(tempfile.mkdtemp(dir=_tmp.name))

    def assertMatchesReference(self, directory: Path, step: int) -> None:
        difference = first_difference(_reference[step], load_state(directory, step))
        self.assertIsNone(difference, f"step {step} differs from the 1x4 reference at {difference}")


class ReferenceSanityTest(ConsistencyTestCase):
    def test_training_actually_moves_weights_and_running_stats(self) -> None:
        first, last = _reference[1]["model"], _reference[STEPS]["model"]
        self.assertIsNotNone(first_difference(first["features.0.weight"], last["features.0.weight"]))
        self.assertIsNotNone(first_difference(first["features.1.running_mean"], last["features.1.running_mean"]))
        self.assertEqual(int(last["features.1.num_batches_tracked"]), STEPS)
        self.assertTrue(bool(torch.all(torch.isfinite(last["head.weight"]))))


class LayoutIndependenceTest(ConsistencyTestCase):
    def run_layout(self, layout: List[List[int]]) -> None:
        run = run_job(JobSpec(self.directory, layout, report_every=10), expect_codes=[0] * len(layout))
        self.assertEqual(run.checkpoint_steps(), [STEPS])
        self.assertMatchesReference(self.directory, STEPS)

    def test_2_workers_x_2_ests(self) -> None:
        self.run_layout([[0, 2], [1, 3]])  # interleaved on purpose: gathers must reorder by vrank

    def test_4_workers_x_1_est(self) -> None:
        self.run_layout([[0], [1], [2], [3]])

    def test_uneven_3_workers(self) -> None:
        self.run_layout([[3], [0, 2], [1]])  # workers pad their gather rows to the largest EST count


class RescaleTest(ConsistencyTestCase):
    def test_4_to_2_to_1_workers_with_periodic_checkpoint_and_stop(self) -> None:
        """Checkpoint every 10 steps; SIGUSR2 once a checkpoint is reported; resume on fewer workers.

        Where the stop lands depends on timing (any step after the report, or the run may even
        finish first); the resume always starts from the periodic checkpoint, and every checkpoint
        that was written, wherever it landed, must match the reference.
        """
        phases = [(None, [[0], [1], [2], [3]], 10), (10, [[0, 1], [2, 3]], 20), (20, [[0, 1, 2, 3]], None)]
        written: List[int] = []
        for resume, layout, stop_after in phases:
            spec = JobSpec(self.directory, layout, resume_step=resume, checkpoint_every=10, report_every=5)
            with JobRun(spec) as run:
                if stop_after is not None:
                    run.rank0.wait_until(lambda w, s=stop_after: any(e["step"] == s for e in w.events("checkpoint")))
                    run.signal_all_when_ready(signal.SIGUSR2)
                codes = run.finish()
                steps = run.checkpoint_steps()
            stopped = steps[-1] < STEPS
            self.assertEqual(codes, [75 if stopped else 0] * len(layout), run.describe())
            self.assertEqual(run.rank0.events("started")[0]["step"], resume or 0)
            written += steps
        self.assertIn(STEPS, written)
        for step in sorted(set(written)):
            self.assertMatchesReference(self.directory, step)

    def test_2_to_1_to_4_workers_on_signals(self) -> None:
        """A request pending at start-up is served at the first step boundary: a deterministic stop step.

        Every worker is born with the signal pending (blocked before exec), as a request that arrives while the
        agent is still starting the job would be; sending it once the workers log "ready" raced their first step.
        """
        phases = [
            (None, [[0, 1], [2, 3]], signal.SIGUSR2, 75),
            (1, [[0, 1, 2, 3]], signal.SIGTERM, 75),
            (2, [[0], [1], [2], [3]], signal.SIGUSR1, 0),  # checkpoint and continue to the end
        ]
        for resume, layout, signum, code in phases:
            with JobRun(JobSpec(self.directory, layout, resume_step=resume, pending_signal=signum)) as run:
                codes = run.finish()
            expected_step = (resume or 0) + 1
            self.assertEqual(codes, [code] * len(layout), run.describe())
            self.assertEqual(run.checkpoint_steps(), [expected_step] if code == 75 else [expected_step, STEPS])
            for worker in run.workers:
                self.assertEqual(worker.events("finished"), [] if code == 75 else [{"event": "finished", "step": STEPS}])
        for step in (1, 2, 3, STEPS):
            self.assertMatchesReference(self.directory, step)


class CheckCanFailTest(ConsistencyTestCase):
    """The comparison is sensitive: a different reduction order or seed does change the bits."""

    def test_d0_worker_grouped_reduction_differs_across_layouts_but_is_reproducible(self) -> None:
        first, second = self.directory / "a", self.directory / "b"
        for directory in (first, second):
            run_job(JobSpec(directory, [[0, 1], [2, 3]], consistency="D0", report_every=10), expect_codes=[0, 0])
        self.assertIsNotNone(first_difference(_reference[STEPS], load_state(first, STEPS)))
        self.assertIsNone(first_difference(load_state(first, STEPS), load_state(second, STEPS)))

    def test_a_different_seed_differs(self) -> None:
        run_job(JobSpec(self.directory, [[0, 1, 2, 3]], seed=1, report_every=10), expect_codes=[0])
        self.assertIsNotNone(first_difference(_reference[STEPS], load_state(self.directory, STEPS)))


if __name__ == "__main__":
    unittest.main()
