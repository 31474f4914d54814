"""The trainer protocol as the host agent sees it: report lines, checkpoint events, exit codes."""

import json
import tempfile
import unittest
from pathlib import Path

from .harness import JobSpec, run_job


class ProtocolTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tessera-protocol-")
        self.directory = Path(self._tmp.name) / "ckpt"

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def assertBadConfiguration(self, spec: JobSpec, fragment: str) -> None:
        run = run_job(spec, expect_codes=[2] * len(spec.layout))
        for worker in run.workers:
            errors = worker.events("error")
            self.assertEqual(len(errors), 1, run.describe())
            self.assertIn(fragment, errors[0]["message"])
            self.assertEqual(worker.events("started"), [])


class ReportLinesTest(ProtocolTestCase):
    def test_two_workers_report_progress_checkpoints_and_finish(self) -> None:
        spec = JobSpec(self.directory, [[0, 1], [2, 3]], total_steps=12, report_every=5, checkpoint_every=4)
        run = run_job(spec, expect_codes=[0, 0])
        for worker, ests in zip(run.workers, ([0, 1], [2, 3])):
            self.assertEqual(worker.stdout_other, [], "stdout must carry only JSON report lines")
            self.assertEqual(worker.reports[0], {"event": "started", "step": 0, "rank": worker.rank, "ests": ests})
            progress = worker.events("progress")
            self.assertEqual([p["step"] for p in progress], [5, 10, 12])  # every 5 steps and the last
            for line in progress:
                self.assertEqual(set(line), {"event", "step", "stepTime", "samplesPerSecond", "rank"})
                self.assertEqual(line["rank"], worker.rank)
                self.assertGreater(line["stepTime"], 0)
                # 2 ESTs x 8 samples per global step on this worker
                self.assertAlmostEqual(line["samplesPerSecond"] * line["stepTime"] / 16, 1.0, delta=0.01)
            self.assertEqual(worker.reports[-1], {"event": "finished", "step": 12})
        checkpoints = run.rank0.events("checkpoint")
        self.assertEqual(
            checkpoints,
            [{"event": "checkpoint", "step": s, "uri": f"{self.directory.as_uri()}/step-{s}"} for s in (4, 8, 12)],
        )
        self.assertEqual(run.workers[1].events("checkpoint"), [], "only rank 0 reports checkpoints")
        self.assertEqual(sorted(p.name for p in self.directory.iterdir()), ["step-12", "step-4", "step-8"])
        meta = json.loads((self.directory / "step-8" / "meta.json").read_text())
        self.assertEqual((meta["step"], meta["epoch"], meta["batchInEpoch"], meta["maxP"]), (8, 1, 0, 4))
        self.assertEqual(meta["writtenBy"], {"worldSize": 2, "ests": [[0, 1], [2, 3]]})
        self.assertEqual(sorted(p.name for p in (self.directory / "step-8").iterdir())[:5], [
            "COMPLETE", "est-0.pt", "est-1.pt", "est-2.pt", "est-3.pt"])

        # Resuming at the last step has nothing left to train.
        done = run_job(JobSpec(self.directory, [[0, 1, 2, 3]], total_steps=12, resume_step=12), expect_codes=[0])
        self.assertEqual([r["event"] for r in done.rank0.reports], ["started", "finished"])
        self.assertEqual(done.rank0.reports[0]["step"], 12)

        # A resume must keep what shapes the trajectory.
        self.assertBadConfiguration(
            JobSpec(self.directory, [[0], [1]], max_p=2, total_steps=12, resume_step=8), "maxP is 4 but this run has 2"
        )
        self.assertBadConfiguration(
            JobSpec(
                self.directory,
                [[0, 1, 2, 3]],
                total_steps=12,
                resume_step=8,
                job_args=("--model", "small-cnn", "--batch-size", "4"),
            ),
            "job is",
        )


class BadConfigurationTest(ProtocolTestCase):
    def test_invalid_local_settings_exit_2_with_an_error_line(self) -> None:
        self.assertBadConfiguration(JobSpec(self.directory, [[0]], extra_env={"TESSERA_ESTS": "0,0"}), "TESSERA_ESTS")
        self.assertBadConfiguration(
            JobSpec(self.directory, [[0, 1, 2, 3]], drop_env=["TESSERA_TOTAL_STEPS"]), "TESSERA_TOTAL_STEPS is required"
        )
        self.assertBadConfiguration(
            JobSpec(self.directory, [[0, 1, 2, 3]], job_args=("--model", "no-such-model")), "invalid choice"
        )
        self.assertBadConfiguration(JobSpec(self.directory, [[0, 1, 2, 3]], resume_step=5), "no COMPLETE marker")

    def test_workers_that_disagree_exit_2(self) -> None:
        self.assertBadConfiguration(
            JobSpec(self.directory, [[0, 1], [1, 2, 3]]), "virtual rank 1 is assigned to both worker ranks 0 and 1"
        )
        self.assertBadConfiguration(JobSpec(self.directory, [[0, 1], [2]]), "virtual ranks [3]")
        self.assertBadConfiguration(
            JobSpec(self.directory, [[0, 1], [2, 3]], rank_env={1: {"TESSERA_SEED": "9"}}),
            "TESSERA_SEED differs between worker rank",
        )
        self.assertBadConfiguration(
            JobSpec(self.directory, [[0, 1], [2, 3]], rank_env={1: {"TESSERA_MAX_P": "5"}}),
            "TESSERA_MAX_P differs between worker rank",
        )


class CrashTest(ProtocolTestCase):
    def test_a_failed_checkpoint_write_is_a_crash(self) -> None:
        blocker = Path(self._tmp.name) / "not-a-directory"
        blocker.write_text("a file where the checkpoint directory should be")
        run = run_job(JobSpec(blocker / "ckpt", [[0, 1, 2, 3]], total_steps=3), expect_codes=[1])
        errors = run.rank0.events("error")
        self.assertEqual(len(errors), 1)
        self.assertIn("NotADirectoryError", errors[0]["message"])
        self.assertEqual(run.rank0.events("finished"), [])


if __name__ == "__main__":
    unittest.main()
