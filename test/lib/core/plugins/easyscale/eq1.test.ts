import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { evaluateEq1 } from '../../../../../lib/core/plugins/easyscale/eq1.ts';

const close = (actual: number, expected: number, message?: string) =>
  assert.ok(
    Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    `${message ?? ''} ${actual} ≠ ${expected}`,
  );

describe('Eq. 1 (waste, f_overload, throughput)', () => {
  test("the spec's example: 4 ESTs on 1 V100 (2 ESTs) + 2 P100 (1 EST each) is balanced", () => {
    const r = evaluateEq1(4, [
      { gpus: 1, capability: 2, ests: 2 },
      { gpus: 2, capability: 1, ests: 1 },
    ]);
    assert.equal(r.nEst, 4);
    close(r.fOverload, 1);
    close(r.waste, 0);
    close(r.throughput, 4);
    close(r.capacity, 4);
  });

  test('hand case: a slow GPU forced to one EST sets the pace and wastes the fast one', () => {
    // 1 GPU of C=10 with 3 ESTs and 1 GPU of C=1 with 1 EST: the step takes 1 s (the slow GPU), the fast GPU idles.
    const r = evaluateEq1(4, [
      { gpus: 1, capability: 10, ests: 3 },
      { gpus: 1, capability: 1, ests: 1 },
    ]);
    close(r.fOverload, 1);
    close(r.waste, 10 - 3 + (1 - 1) + 0);
    close(r.wasteRatio, 7 / 11);
    close(r.throughput, 4); // = maxP / f_overload
  });

  test('hand case: ESTs beyond maxP count as waste (Eq. 1a over-provisioning)', () => {
    // 3 equal GPUs × 2 ESTs = 6 slots for maxP = 4: f = 2, the 2 spare slots waste 2/f = 1 mini-batch/s.
    const r = evaluateEq1(4, [{ gpus: 3, capability: 1, ests: 2 }]);
    close(r.fOverload, 2);
    close(r.waste, 0 + (6 - 4) / 2);
    close(r.wasteRatio, 1 / 3);
    close(r.throughput, 2);
  });

  test('throughput = Σ N_i·C_i − waste = maxP / f_overload for any valid plan', () => {
    const share = fc.record({
      gpus: fc.integer({ min: 0, max: 8 }),
      capability: fc.double({ min: 0.05, max: 50, noNaN: true }),
      ests: fc.integer({ min: 1, max: 16 }),
    });
    fc.assert(
      fc.property(
        fc.array(share, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 64 }),
        (shares, maxP) => {
          const nEst = shares.reduce((s, x) => s + x.gpus * x.ests, 0);
          fc.pre(nEst >= maxP);
          const r = evaluateEq1(maxP, shares);
          close(r.throughput, maxP / r.fOverload);
          assert.ok(r.waste >= -1e-9 && r.wasteRatio <= 1 + 1e-9);
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  test('rejects plans that break its rules, naming the rule', () => {
    assert.throws(() => evaluateEq1(5, [{ gpus: 2, capability: 1, ests: 2 }]), /nEST = 4 must be ≥ maxP = 5/);
    assert.throws(() => evaluateEq1(2, [{ gpus: 2, capability: 1, ests: 0 }]), /ests must be an integer ≥ 1/);
    assert.throws(() => evaluateEq1(2, [{ gpus: 2, capability: 0, ests: 1 }]), /capability must be > 0/);
    assert.throws(
      () => evaluateEq1(0, [{ gpus: 1, capability: 1, ests: 1 }]),
      /maxP must be a positive integer/,
    );
    assert.throws(() => evaluateEq1(1, [{ gpus: 0, capability: 1, ests: 1 }]), /at least one GPU/);
  });
});
