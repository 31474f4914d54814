"""The per-EST batch a job gets from the scheduler's global batch and its fixed logical size."""

import unittest

from tessera_trainer.job_args import parse_job_args, per_est_batch


class GlobalBatchTest(unittest.TestCase):
    def test_global_batch_over_max_p(self) -> None:
        self.assertEqual(per_est_batch(64, 8), 8)
        self.assertEqual(per_est_batch(100, 8), 12)  # rounded down, fixed for the job's life
        self.assertEqual(per_est_batch(4, 8), 1)
        self.assertEqual(per_est_batch(None, 8), 8)  # no scheduler value: the old default

    def test_explicit_batch_size_wins(self) -> None:
        self.assertEqual(parse_job_args(["--model", "small-cnn", "--batch-size", "3"], 64, 8).batch_size, 3)
        self.assertEqual(parse_job_args(["--model", "small-cnn"], 64, 8).batch_size, 8)
        self.assertEqual(parse_job_args(["--model", "small-cnn"], 64, 4).batch_size, 16)


if __name__ == "__main__":
    unittest.main()
