import unittest

from tessera_trainer.errors import ConfigError
from tessera_trainer.layout import EstLayout


class EstLayoutTest(unittest.TestCase):
    def test_locations_of_an_uneven_layout(self) -> None:
        layout = EstLayout.validated(4, [[2], [3, 0], [1]])
        self.assertEqual(layout.worker_ests, ((2,), (0, 3), (1,)))
        self.assertEqual(layout.rows_per_worker, 2)
        self.assertEqual([layout.location(v) for v in range(4)], [(1, 0), (2, 0), (0, 0), (1, 1)])

    def test_every_virtual_rank_exactly_once(self) -> None:
        cases = [
            ([[0, 1], [1, 2, 3]], "virtual rank 1 is assigned to both worker ranks 0 and 1"),
            ([[0], [1]], "virtual ranks [2, 3] of TESSERA_MAX_P=4 are assigned to no worker"),
            ([[0, 1, 2, 3], []], "worker rank 1 has no EST"),
            ([[0, 1, 2, 3, 4]], "virtual rank 4 outside [0, 4)"),
        ]
        for worker_ests, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(ConfigError) as caught:
                    EstLayout.validated(4, worker_ests)
                self.assertIn(message, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
