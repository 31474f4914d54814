import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { RoundContext } from '../../../../../lib/core/framework/stages.ts';
import type { CriusAllocateOptions } from '../../../../../lib/core/plugins/crius/allocate.ts';
import { withEveryOption } from '../../../../../lib/core/plugins/crius/every-option.ts';
import type { CellConfig, JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { tesseraGuaranteedStages } from '../../../../../lib/core/plugins/tessera/policy.ts';

/** Options as the policies build them: defaults, some overrides, the optional fields present or not. */
const optionsArb = fc
  .record(
    {
      countScaling: fc.boolean(),
      typeScaling: fc.boolean(),
      deadlines: fc.boolean(),
      oneHostCount: fc.boolean(),
      depth: fc.integer({ min: 0, max: 4 }),
      minScaleUpGain: fc.double({ min: 0, max: 1, noNaN: true }),
      reclaimFaster: fc.constant({ minGain: 0.1, victim: () => true }),
      scaleUpPays: fc.constant(() => () => true),
      scaleUpBeyondDepth: fc.constant(() => () => true),
    },
    { requiredKeys: [] },
  )
  .map((overrides): CriusAllocateOptions => ({ ...DEFAULT_CRIUS_OPTIONS, ...overrides, name: 'x' }));

/** Without a rule, the search's check `!scaleUpPays(jobId, from, to, cells)` never holds: every scale-up above the margin pays. */
const assertPaysAlways = (options: CriusAllocateOptions): void => {
  const rule = options.scaleUpPays?.([], {} as RoundContext);
  assert.ok(rule);
  const cell = { key: 'A100-40GB|1', gpuType: 'A100-40GB', gpus: 1, rate: 1 } as unknown as CellConfig;
  const cells = { configs: [cell] } as unknown as JobCells;
  assert.equal(rule('job', cell, { ...cell, gpus: 2, rate: 2 }, cells), true);
  assert.equal(rule('job', cell, { ...cell, gpus: 2, rate: 0.5 }, cells), true);
};

describe('the Crius stage options with every field present', () => {
  test('property: every field reads as in the given options (an absent scale-up rule as one that always pays), and the fields come in one order', () => {
    const orders = new Set<string>();
    fc.assert(
      fc.property(optionsArb, (given) => {
        const every = withEveryOption(given);
        for (const key of Object.keys(given) as (keyof CriusAllocateOptions)[])
          assert.equal(every[key], given[key], key);
        for (const key of Object.keys(every) as (keyof CriusAllocateOptions)[])
          if (!(key in given) && key !== 'scaleUpPays') assert.equal(every[key], undefined, key);
        if (!('scaleUpPays' in given)) assertPaysAlways(every);
        orders.add(Object.keys(every).join());
      }),
      { numRuns: 300, seed: 5 },
    );
    assert.equal(orders.size, 1);
  });

  test("tessera's options (with its extra fields) and Crius's defaults give objects of the same fields", () => {
    const crius = withEveryOption({ ...DEFAULT_CRIUS_OPTIONS, name: 'crius' });
    const tessera = withEveryOption({
      ...DEFAULT_CRIUS_OPTIONS,
      name: 'tessera',
      oneHostCount: true,
      reclaimFaster: { minGain: 0.1, victim: () => false },
      scaleUpPays: () => () => true,
      scaleUpBeyondDepth: () => () => true,
    });
    assert.deepEqual(Object.keys(tessera), Object.keys(crius));
    assert.equal(tessera.oneHostCount, true);
    assert.equal(crius.oneHostCount, undefined);
    assertPaysAlways(crius);
    // The stage is still built from them: tessera's allocation stage keeps its name.
    assert.equal(tesseraGuaranteedStages.allocate.name, 'tessera');
  });
});
