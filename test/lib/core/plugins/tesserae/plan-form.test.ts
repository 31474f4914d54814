import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Allocation } from '../../../../../lib/core/model/plan.ts';
import { inPlanForm, samePlanFormGpus } from '../../../../../lib/core/plugins/tesserae/plan-form.ts';

/** Plain specifications: distinct hosts, non-empty ascending GPUs; the same (host, GPU) pairs, slice order aside. */
const planFormSpec = (a: Allocation): boolean => {
  const hosts = a.slices.map((s) => s.hostId);
  if (new Set(hosts).size !== hosts.length) return false;
  return a.slices.every((s) => s.gpus.length > 0 && s.gpus.every((g, k) => k === 0 || s.gpus[k - 1]! < g));
};
const gpuSet = (a: Allocation): string =>
  a.slices
    .flatMap((s) => s.gpus.map((g) => `${s.hostId}#${g}`))
    .sort()
    .join(',');

const sliceArb = fc.record({
  hostId: fc.constantFrom('h0', 'h1', 'h2'),
  gpus: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }),
});
const allocationArb = fc
  .record({ slices: fc.array(sliceArb, { minLength: 1, maxLength: 3 }), sorted: fc.boolean() })
  .map(
    ({ slices, sorted }): Allocation => ({
      gpuType: 'A100',
      // Half of them normalised (the form most allocations have), half as drawn.
      slices: sorted
        ? slices.map((s) => ({ hostId: s.hostId, gpus: [...new Set(s.gpus)].sort((a, b) => a - b) }))
        : slices,
    }),
  );

describe('plan form of allocations', () => {
  test('property: inPlanForm is the plain specification', () => {
    fc.assert(
      fc.property(allocationArb, (a) => {
        assert.equal(inPlanForm(a), planFormSpec(a));
      }),
      { numRuns: 500, seed: 7 },
    );
  });

  test('property: on allocations in plan form, samePlanFormGpus is equality of (host, GPU) sets', () => {
    let equalPairs = 0;
    fc.assert(
      fc.property(allocationArb, allocationArb, fc.boolean(), (a, b, shuffled) => {
        // Often the same GPUs with the slices in another order, so that both answers are exercised.
        const other = shuffled ? { ...a, slices: [...a.slices].reverse() } : b;
        fc.pre(inPlanForm(a) && inPlanForm(other));
        const same = gpuSet(a) === gpuSet(other);
        if (same) equalPairs++;
        assert.equal(samePlanFormGpus(a, other), same);
      }),
      { numRuns: 500, seed: 11 },
    );
    assert.ok(equalPairs > 50, `only ${equalPairs} equal pairs`);
  });

  test('a GPU missing or different on one host, or another host, is not the same', () => {
    const a: Allocation = {
      gpuType: 'A100',
      slices: [
        { hostId: 'h0', gpus: [0, 1] },
        { hostId: 'h1', gpus: [2] },
      ],
    };
    assert.equal(
      samePlanFormGpus(a, {
        ...a,
        slices: [
          { hostId: 'h1', gpus: [2] },
          { hostId: 'h0', gpus: [0, 1] },
        ],
      }),
      true,
    );
    assert.equal(
      samePlanFormGpus(a, {
        ...a,
        slices: [
          { hostId: 'h0', gpus: [0, 2] },
          { hostId: 'h1', gpus: [2] },
        ],
      }),
      false,
    );
    assert.equal(
      samePlanFormGpus(a, {
        ...a,
        slices: [
          { hostId: 'h0', gpus: [0, 1] },
          { hostId: 'h2', gpus: [2] },
        ],
      }),
      false,
    );
    assert.equal(samePlanFormGpus(a, { ...a, slices: [{ hostId: 'h0', gpus: [0, 1] }] }), false);
  });
});
