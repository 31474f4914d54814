import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { allowedTypes } from '../../../../../lib/core/framework/estimates.ts';
import type { RoundContext } from '../../../../../lib/core/framework/stages.ts';
import { efficiencyKey } from '../../../../../lib/core/plugins/crius/calibration.ts';
import { untriedTypesOf } from '../../../../../lib/core/plugins/tessera/untried-types.ts';
import { cluster, spec, stageContext } from '../../../../support/fixtures.ts';

const types = ['a100', 'k80', 'v100', 'a10'];
const c = cluster(types.map((gpuType) => ({ gpuType, hosts: 1, gpusPerHost: 4 })));
const models = ['resnet50', 'bert', 'lstm'];

/** A round whose calibration knows the model × type pairs in `known`. */
const roundKnowing = (known: readonly string[]): RoundContext => {
  const base = stageContext(c, []);
  const efficiency = Object.fromEntries(known.map((k) => [k, 1]));
  return { ...base, state: { ...base.state, cellCalibration: { cells: {}, efficiency } } };
};

/** Without the per-round index: the allowed types whose model × type the calibration has no efficiency for. */
const plainUntried = (ctx: RoundContext, s: ReturnType<typeof spec>): string[] =>
  allowedTypes(s, ctx).filter(
    (t) => ctx.state.cellCalibration?.efficiency[efficiencyKey(s.model, t)] === undefined,
  );

const pairs = models.flatMap((m) => types.map((t) => `${m}|${t}`));

describe('untriedTypesOf: the types a model never ran on, once per model and allowed types a round', () => {
  test('property: every answer of a round is the plain filter of that round’s calibration, in allowed order', () => {
    fc.assert(
      fc.property(
        fc.subarray(pairs),
        fc.array(
          fc.record({
            model: fc.constantFrom(...models),
            gpuTypes: fc.option(fc.subarray(types, { minLength: 1 }), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        (known, asked) => {
          const ctx = roundKnowing(known);
          const untried = untriedTypesOf(ctx);
          for (const a of asked) {
            const s = spec({ model: a.model, ...(a.gpuTypes ? { gpuTypes: a.gpuTypes } : {}) });
            assert.deepEqual([...untried(s)], plainUntried(ctx, s));
          }
        },
      ),
      { numRuns: 200, seed: 11 },
    );
  });

  test('the same model with other allowed types gets its own answer within a round', () => {
    const ctx = roundKnowing(['bert|a100']);
    const untried = untriedTypesOf(ctx);
    assert.deepEqual([...untried(spec({ model: 'bert' }))], ['a10', 'k80', 'v100']);
    assert.deepEqual([...untried(spec({ model: 'bert', gpuTypes: ['a100', 'v100'] }))], ['v100']);
    assert.deepEqual([...untried(spec({ model: 'bert', gpuTypes: ['a100'] }))], []);
  });

  test('a later round answers from its own calibration: a type learned since is no longer untried', () => {
    const s = spec({ model: 'lstm' });
    assert.deepEqual([...untriedTypesOf(roundKnowing([]))(s)], ['a10', 'a100', 'k80', 'v100']);
    assert.deepEqual([...untriedTypesOf(roundKnowing(['lstm|k80', 'lstm|a10']))(s)], ['a100', 'v100']);
    assert.deepEqual([...untriedTypesOf(roundKnowing(['lstm|k80']))(s)], ['a10', 'a100', 'v100']);
  });
});
