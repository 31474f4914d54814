import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import torch

from tessera_trainer import checkpoint
from tessera_trainer.checkpoint import CheckpointStore
from tessera_trainer.errors import ConfigError

CPU = torch.device("cpu")


def meta(step: int) -> dict:
    return {"format": checkpoint.FORMAT_VERSION, "step": step, "maxP": 2}


class CheckpointStoreTest(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name) / "ckpt"
        self.store = CheckpointStore(str(self.root), self.root.as_uri())

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def write(self, step: int, value: float = 1.0) -> Path:
        state = {"model": {"w": torch.full((3,), value)}}
        contexts = {0: {"vrank": 0, "x": torch.tensor([value])}, 1: {"vrank": 1}}
        return self.store.write(step, meta(step), state, contexts)

    def test_round_trip_and_layout(self) -> None:
        path = self.write(10)
        self.assertEqual(path, self.root / "step-10")
        self.assertEqual(
            sorted(p.name for p in path.iterdir()), ["COMPLETE", "est-0.pt", "est-1.pt", "meta.json", "state.pt"]
        )
        self.assertEqual([p.name for p in self.root.iterdir()], ["step-10"])  # no temp dir left behind
        self.assertEqual(self.store.read_meta(10)["maxP"], 2)
        self.assertTrue(torch.equal(self.store.read_state(10, CPU)["model"]["w"], torch.ones(3)))
        self.assertEqual(self.store.read_est(10, 0)["vrank"], 0)
        self.assertEqual(self.store.step_uri(10), self.root.as_uri() + "/step-10")

    def test_a_step_directory_without_the_marker_is_not_a_checkpoint(self) -> None:
        self.write(10)
        (self.root / "step-10" / "COMPLETE").unlink()
        self.assertFalse(self.store.is_complete(10))
        with self.assertRaises(ConfigError) as caught:
            self.store.read_meta(10)
        self.assertIn("no COMPLETE marker", str(caught.exception))
        with self.assertRaises(ConfigError):
            self.store.read_state(11, CPU)

    def test_a_crash_mid_write_leaves_no_step_directory(self) -> None:
        real_save = torch.save
        calls = []

        def failing_save(obj: object, f: object) -> None:
            calls.append(obj)
            if len(calls) == 2:  # state.pt written, first EST file fails
                raise OSError("disk full")
            real_save(obj, f)

        with mock.patch.object(checkpoint.torch, "save", failing_save):
            with self.assertRaises(OSError):
                self.write(20)
        self.assertFalse((self.root / "step-20").exists())
        leftovers = [p.name for p in self.root.iterdir()]
        self.assertEqual(len(leftovers), 1)
        self.assertTrue(leftovers[0].startswith(".tmp-step-20-"))
        self.store.remove_abandoned_temp_dirs()
        self.assertEqual(list(self.root.iterdir()), [])

    def test_rewriting_a_step_replaces_it_whole(self) -> None:
        self.write(5, value=1.0)
        self.write(5, value=2.0)
        self.assertTrue(torch.equal(self.store.read_state(5, CPU)["model"]["w"], torch.full((3,), 2.0)))
        self.assertEqual([p.name for p in self.root.iterdir()], ["step-5"])

    def test_metadata_is_checked(self) -> None:
        self.write(7)
        meta_path = self.root / "step-7" / "meta.json"
        meta_path.write_text(json.dumps({"format": 99, "step": 7}))
        with self.assertRaises(ConfigError) as caught:
            self.store.read_meta(7)
        self.assertIn("format 99", str(caught.exception))
        meta_path.write_text(json.dumps({"format": checkpoint.FORMAT_VERSION, "step": 8}))
        with self.assertRaises(ConfigError) as caught:
            self.store.read_meta(7)
        self.assertIn("records step 8", str(caught.exception))
        (self.root / "step-7" / "est-1.pt").unlink()
        with self.assertRaises(ConfigError) as caught:
            self.store.read_est(7, 1)
        self.assertIn("missing EST context for virtual rank 1", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
