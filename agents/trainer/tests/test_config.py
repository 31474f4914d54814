import unittest

from tessera_trainer.config import parse_worker_config
from tessera_trainer.errors import ConfigError


def env(**overrides: str) -> dict:
    base = {
        "TESSERA_JOB_ID": "job-1",
        "TESSERA_GENERATION": "3",
        "TESSERA_RANK": "1",
        "TESSERA_WORLD_SIZE": "2",
        "TESSERA_LOCAL_RANK": "0",
        "TESSERA_MASTER_ADDR": "127.0.0.1",
        "TESSERA_MASTER_PORT": "29500",
        "TESSERA_TOTAL_STEPS": "100",
        "TESSERA_CHECKPOINT_URI": "file:///tmp/ckpt",
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


class ParseWorkerConfigTest(unittest.TestCase):
    def assertRejects(self, environment: dict, *fragments: str, cuda: bool = False) -> None:
        with self.assertRaises(ConfigError) as caught:
            parse_worker_config(environment, cuda_available=cuda)
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))

    def test_defaults_follow_the_protocol(self) -> None:
        config = parse_worker_config(env(), cuda_available=False)
        self.assertEqual(config.max_p, 2)  # absent = world size
        self.assertEqual(config.ests, (1,))  # absent = own rank
        self.assertIsNone(config.resume_step)
        self.assertEqual((config.seed, config.device, config.consistency), (0, "cpu", "D1"))
        self.assertEqual((config.report_every, config.checkpoint_every), (1, 0))
        self.assertEqual(config.checkpoint_dir, "/tmp/ckpt")
        self.assertEqual(parse_worker_config(env(), cuda_available=True).device, "cuda")

    def test_explicit_values(self) -> None:
        config = parse_worker_config(
            env(
                TESSERA_MAX_P="8",
                TESSERA_ESTS="5, 1,3",
                TESSERA_RESUME_STEP="40",
                TESSERA_SEED="7",
                TESSERA_DEVICE="cpu",
                TESSERA_CONSISTENCY="D0",
                TESSERA_REPORT_EVERY="10",
                TESSERA_CHECKPOINT_EVERY="25",
                TESSERA_CHECKPOINT_URI="file:///data/my%20job/",
            ),
            cuda_available=True,
        )
        self.assertEqual(config.ests, (1, 3, 5))
        self.assertEqual((config.max_p, config.resume_step, config.seed), (8, 40, 7))
        self.assertEqual((config.device, config.consistency), ("cpu", "D0"))
        self.assertEqual((config.report_every, config.checkpoint_every), (10, 25))
        self.assertEqual(config.checkpoint_dir, "/data/my job")
        self.assertIsNone(parse_worker_config(env(TESSERA_RESUME_STEP="-1"), False).resume_step)

    def test_required_variables_are_named(self) -> None:
        for name in (
            "TESSERA_JOB_ID",
            "TESSERA_GENERATION",
            "TESSERA_RANK",
            "TESSERA_WORLD_SIZE",
            "TESSERA_LOCAL_RANK",
            "TESSERA_TOTAL_STEPS",
            "TESSERA_CHECKPOINT_URI",
        ):
            with self.subTest(name=name):
                self.assertRejects(env(**{name: None}), name, "required")
        self.assertRejects(env(TESSERA_MASTER_PORT=None), "TESSERA_MASTER_PORT", "WORLD_SIZE > 1")
        parse_worker_config(env(TESSERA_WORLD_SIZE="1", TESSERA_RANK="0", TESSERA_MASTER_ADDR=None), False)

    def test_invalid_values_are_rejected_with_the_rule(self) -> None:
        cases = [
            (env(TESSERA_RANK="2"), "TESSERA_RANK=2 must be < TESSERA_WORLD_SIZE"),
            (env(TESSERA_WORLD_SIZE="0"), "TESSERA_WORLD_SIZE=0 must be >= 1"),
            (env(TESSERA_TOTAL_STEPS="ten"), "TESSERA_TOTAL_STEPS='ten' must be a base-10 integer"),
            (env(TESSERA_MAX_P="1"), "TESSERA_MAX_P=1 must be >= TESSERA_WORLD_SIZE"),
            (env(TESSERA_MAX_P="4", TESSERA_ESTS="0,4"), "virtual rank 4 must be < TESSERA_MAX_P (4)"),
            (env(TESSERA_MAX_P="4", TESSERA_ESTS="1,1"), "must not repeat"),
            (env(TESSERA_MAX_P="4", TESSERA_ESTS="1,,2"), "without empty items"),
            (env(TESSERA_MAX_P="4", TESSERA_ESTS="-1"), "must be >= 0"),
            (env(TESSERA_RESUME_STEP="101"), "TESSERA_RESUME_STEP=101 must be <= TESSERA_TOTAL_STEPS"),
            (env(TESSERA_RESUME_STEP="-2"), "TESSERA_RESUME_STEP=-2 must be >= -1"),
            (env(TESSERA_CONSISTENCY="D2"), "TESSERA_CONSISTENCY='D2' must be one of D0, D1"),
            (env(TESSERA_DEVICE="tpu"), "TESSERA_DEVICE='tpu'"),
            (env(TESSERA_DEVICE="cuda"), "no usable CUDA device"),
            (env(TESSERA_REPORT_EVERY="0"), "TESSERA_REPORT_EVERY=0 must be >= 1"),
            (env(TESSERA_CHECKPOINT_EVERY="-5"), "TESSERA_CHECKPOINT_EVERY=-5 must be >= 0"),
            (env(TESSERA_MASTER_PORT="70000"), "must be <= 65535"),
            (env(TESSERA_CHECKPOINT_URI="s3://bucket/prefix"), "s3:// is not supported"),
            (env(TESSERA_CHECKPOINT_URI="/tmp/ckpt"), "must use the file:// scheme"),
            (env(TESSERA_CHECKPOINT_URI="file://host/tmp"), "must not name a host"),
        ]
        for environment, fragment in cases:
            with self.subTest(fragment=fragment):
                self.assertRejects(environment, fragment)


if __name__ == "__main__":
    unittest.main()
