import unittest

import torch
from torch.utils.data import DistributedSampler

from tessera_trainer.sampler import VirtualRankSampler


class _Sized(torch.utils.data.Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


class VirtualRankSamplerTest(unittest.TestCase):
    def test_each_virtual_rank_gets_what_torch_distributed_sampler_gives_that_rank(self) -> None:
        for size, replicas, seed in [(256, 4, 0), (10, 3, 5), (3, 8, 1), (17, 1, 2)]:
            sampler = VirtualRankSampler(size, replicas, seed, batch_size=2)
            for rank in range(replicas):
                reference = DistributedSampler(_Sized(size), num_replicas=replicas, rank=rank, shuffle=True, seed=seed)
                for epoch in (0, 1, 7):
                    reference.set_epoch(epoch)
                    with self.subTest(size=size, replicas=replicas, rank=rank, epoch=epoch):
                        self.assertEqual(sampler.rank_indices(rank, epoch), list(reference))

    def test_batches_walk_the_rank_indices_and_roll_over_epochs(self) -> None:
        sampler = VirtualRankSampler(dataset_size=20, num_replicas=2, seed=3, batch_size=4)
        self.assertEqual(sampler.batches_per_epoch, 3)  # 10 samples per rank: 4 + 4 + 2
        for vrank in (0, 1):
            for epoch in (0, 1):
                steps = range(epoch * 3, epoch * 3 + 3)
                walked = [i for step in steps for i in sampler.batch_indices(vrank, step)]
                self.assertEqual(walked, sampler.rank_indices(vrank, epoch))
        self.assertEqual(len(sampler.batch_indices(0, 2)), 2)
        position = sampler.position_of_step(7)
        self.assertEqual((position.epoch, position.batch_in_epoch), (2, 1))
        self.assertNotEqual(sampler.rank_indices(0, 0), sampler.rank_indices(0, 1))  # reshuffled per epoch

    def test_ranks_partition_one_epoch(self) -> None:
        sampler = VirtualRankSampler(dataset_size=64, num_replicas=4, seed=0, batch_size=8)
        union = sorted(i for v in range(4) for i in sampler.rank_indices(v, 0))
        self.assertEqual(union, list(range(64)))

    def test_rejects_out_of_range_rank(self) -> None:
        with self.assertRaises(ValueError):
            VirtualRankSampler(8, 2, 0, 1).rank_indices(2, 0)


if __name__ == "__main__":
    unittest.main()
