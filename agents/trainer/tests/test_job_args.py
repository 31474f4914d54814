import unittest

from tessera_trainer.errors import ConfigError
from tessera_trainer.job_args import parse_job_args, trajectory_settings


class JobArgsTest(unittest.TestCase):
    def test_defaults_and_overrides(self) -> None:
        args = parse_job_args(["--model", "small-cnn", "--batch-size", "4", "--lr", "0.1"])
        self.assertEqual((args.model, args.batch_size, args.lr, args.torch_threads), ("small-cnn", 4, 0.1, 1))
        settings = trajectory_settings(args)
        self.assertEqual(settings["batch_size"], 4)
        self.assertNotIn("torch_threads", settings)  # not part of the trajectory record
        self.assertNotIn("collective_timeout", settings)

    def test_bad_arguments_raise_config_errors(self) -> None:
        cases = [
            ([], "--model"),
            (["--model", "resnet-9000"], "invalid choice"),
            (["--model", "small-cnn", "--batch-size", "0"], "must be >= 1"),
            (["--model", "small-cnn", "--lr", "nan"], "must be a number > 0"),
            (["--model", "small-cnn", "--image-size", "2"], "--image-size 2 must be >= 4"),
            (["--model", "small-cnn", "--num-classes", "1"], "--num-classes 1 must be >= 2"),
            (["--model", "small-cnn", "--unknown"], "unrecognized arguments"),
        ]
        for argv, fragment in cases:
            with self.subTest(argv=argv):
                with self.assertRaises(ConfigError) as caught:
                    parse_job_args(argv)
                self.assertIn(fragment, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
