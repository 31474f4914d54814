import unittest

import torch

from tessera_trainer.aggregation import (
    Aggregator,
    ContributionSpec,
    pack_contribution,
    sum_in_order,
    unpack_average,
)
from tessera_trainer.layout import EstLayout
from tessera_trainer.models import build_model


class ContributionTest(unittest.TestCase):
    def test_pack_then_unpack_round_trips_gradients_and_float_buffers(self) -> None:
        torch.manual_seed(0)
        model = build_model("small-cnn", 5)
        spec = ContributionSpec.of(model)
        self.assertEqual(
            spec.buffer_names,
            ("features.1.running_mean", "features.1.running_var", "features.5.running_mean", "features.5.running_var"),
        )
        model.train()
        model(torch.randn(4, 3, 8, 8)).sum().backward()
        row = torch.empty(spec.numel)
        pack_contribution(model, spec, row)
        expected_grads = [p.grad.clone() for p in model.parameters()]
        expected_stats = [b.clone() for b in model.buffers() if b.is_floating_point()]

        fresh = build_model("small-cnn", 5)
        unpack_average(fresh, spec, row)
        for got, want in zip([p.grad for p in fresh.parameters()], expected_grads):
            self.assertTrue(torch.equal(got, want))
        for got, want in zip([b for b in fresh.buffers() if b.is_floating_point()], expected_stats):
            self.assertTrue(torch.equal(got, want))

    def test_missing_gradients_count_as_zero(self) -> None:
        model = build_model("small-cnn", 3)
        spec = ContributionSpec.of(model)
        row = torch.full((spec.numel,), 7.0)
        pack_contribution(model, spec, row)
        gradient_part = sum(spec.sizes[: len(spec.parameter_names)])
        self.assertTrue(torch.all(row[:gradient_part] == 0))


class ReductionOrderTest(unittest.TestCase):
    def test_sum_in_order_is_a_left_fold(self) -> None:
        rows = [torch.randn(16) for _ in range(5)]
        expected = rows[0].clone()
        for row in rows[1:]:
            expected = expected + row
        self.assertTrue(torch.equal(sum_in_order(rows), expected))

    def test_grouping_by_worker_changes_the_bits(self) -> None:
        # Float addition is not associative: the D0 grouping (per-worker partials) of a 2x2 layout
        # differs from the canonical vrank-order fold — which is why D1 gathers and folds in one order.
        rows = [torch.tensor([1e8]), torch.tensor([1.0]), torch.tensor([-1e8]), torch.tensor([1.0])]
        canonical = sum_in_order(rows)
        by_worker = sum_in_order([sum_in_order(rows[:2]), sum_in_order(rows[2:])])
        self.assertFalse(torch.equal(canonical, by_worker))

    def test_single_worker_d0_and_d1_agree(self) -> None:
        layout = EstLayout.validated(3, [[0, 1, 2]])
        results = []
        for consistency in ("D0", "D1"):
            aggregator = Aggregator(layout, 0, consistency, 8, torch.device("cpu"))
            generator = torch.Generator().manual_seed(1)
            aggregator.local_rows.copy_(torch.randn(3, 8, generator=generator))
            results.append(aggregator.average())
        self.assertTrue(torch.equal(results[0], results[1]))
        self.assertTrue(torch.equal(results[1], sum_in_order(list(aggregator.local_rows)) / 3))


if __name__ == "__main__":
    unittest.main()
