import random
import unittest

import numpy
import torch

from tessera_trainer.est_context import EstContext, derive_seed

CPU = torch.device("cpu")


def draw(context: EstContext) -> tuple:
    """One 'mini-batch' worth of draws from every virtualised stream, inside the EST's context."""
    context.swap_in(CPU)
    values = (
        torch.rand(3).tolist(),
        random.random(),
        numpy.random.rand(),
        torch.rand(2, generator=context.data_generator).tolist(),
    )
    context.swap_out(CPU)
    return values


class EstContextTest(unittest.TestCase):
    def test_interleaving_ests_does_not_change_their_streams(self) -> None:
        alone = [EstContext.fresh(0, v, CPU) for v in (0, 1)]
        expected = {v: [draw(alone[v]) for _ in range(3)] for v in (0, 1)}
        interleaved = [EstContext.fresh(0, v, CPU) for v in (0, 1)]
        got = {0: [], 1: []}
        for _ in range(3):
            for v in (1, 0):  # opposite order and interleaved with unrelated draws in between
                torch.rand(5)
                random.random()
                got[v].append(draw(interleaved[v]))
        self.assertEqual(got, expected)

    def test_streams_differ_between_virtual_ranks_and_seeds(self) -> None:
        self.assertNotEqual(draw(EstContext.fresh(0, 0, CPU)), draw(EstContext.fresh(0, 1, CPU)))
        self.assertNotEqual(draw(EstContext.fresh(0, 0, CPU)), draw(EstContext.fresh(1, 0, CPU)))
        self.assertEqual(draw(EstContext.fresh(3, 2, CPU)), draw(EstContext.fresh(3, 2, CPU)))

    def test_saved_context_continues_the_same_streams(self) -> None:
        original = EstContext.fresh(5, 3, CPU)
        draw(original)
        restored = EstContext.from_dict(original.to_dict(), base_seed=5, device=CPU)
        self.assertEqual(restored.vrank, 3)
        self.assertEqual([draw(restored) for _ in range(2)], [draw(original) for _ in range(2)])

    def test_derived_seeds_are_stable_and_distinct(self) -> None:
        # sha256-based, so the value never depends on Python's hash randomisation
        self.assertEqual(derive_seed(0, 0, "torch"), derive_seed(0, 0, "torch"))
        seeds = {derive_seed(s, v, stream) for s in range(3) for v in range(4) for stream in ("torch", "data")}
        self.assertEqual(len(seeds), 24)
        self.assertTrue(all(0 <= s < 2**32 for s in seeds))


if __name__ == "__main__":
    unittest.main()
