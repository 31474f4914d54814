import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pairedWith } from '../../../../../lib/core/model/allocation-of.ts';
import type { Allocation } from '../../../../../lib/core/model/plan.ts';
import { unchangedPairing } from '../../../../../lib/core/plugins/tesserae/paired-allocation.ts';
import { on } from '../../../../support/fixtures.ts';

const cell = { gpuType: 'A100', gpus: 2, stageGpus: [2] };
const base: Allocation = { ...on('A100', ['h1', [0, 1]]), cell };
/** What the packing stages build. */
const built = (b: Allocation, partner: string, strategy?: string): Allocation =>
  pairedWith(b, partner, strategy);

describe('unchangedPairing: the held allocation when it is exactly the pairing', () => {
  test('the very allocation the job holds, when it equals what would be built (with and without a strategy)', () => {
    for (const strategy of [undefined, 'pp']) {
      const held = built({ ...on('A100', ['h1', [0, 1]]), cell }, 'G', strategy);
      assert.equal(unchangedPairing(held, base, 'G', strategy), held);
      assert.deepEqual(held, built(base, 'G', strategy));
    }
  });

  test('undefined whenever the built allocation would differ in any field', () => {
    const held = built(base, 'G');
    const variants: [string, Allocation | undefined, Allocation, string, string | undefined][] = [
      ['nothing held', undefined, base, 'G', undefined],
      ['another partner', held, base, 'H', undefined],
      ['a strategy now', held, base, 'G', 'pp'],
      ['no strategy now', built(base, 'G', 'pp'), base, 'G', undefined],
      ['other GPUs', held, { ...on('A100', ['h1', [0, 2]]), cell }, 'G', undefined],
      ['GPUs in another order', held, { ...on('A100', ['h1', [1, 0]]), cell }, 'G', undefined],
      ['another host', held, { ...on('A100', ['h2', [0, 1]]), cell }, 'G', undefined],
      ['another Cell', held, { ...on('A100', ['h1', [0, 1]]), cell: { ...cell } }, 'G', undefined],
      ['no Cell', held, on('A100', ['h1', [0, 1]]), 'G', undefined],
      ['another type', held, { ...on('V100', ['h1', [0, 1]]), cell }, 'G', undefined],
      ['a partner already in the base', held, built(base, 'H'), 'G', undefined],
    ];
    for (const [what, previous, b, partner, strategy] of variants)
      assert.equal(unchangedPairing(previous, b, partner, strategy), undefined, what);
  });

  test('slices equal in content (a copy) count as the same GPUs', () => {
    const held = built(on('A100', ['h1', [0, 1]], ['h2', [3]]), 'G');
    const copy = on('A100', ['h1', [0, 1]], ['h2', [3]]);
    assert.equal(unchangedPairing(held, copy, 'G', undefined), held);
  });
});
