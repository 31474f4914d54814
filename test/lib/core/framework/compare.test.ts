import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { byPriorityThenArrival, sortByKey, sortKeyed } from '../../../../lib/core/framework/compare.ts';
import { queued } from '../../../support/fixtures.ts';

describe('sorting jobs by a key', () => {
  test('ascending key, then higher priority, earlier arrival and id break ties', () => {
    const jobs = [
      queued({ id: 'b', submitTime: 0 }),
      queued({ id: 'a', submitTime: 5 }),
      queued({ id: 'c', submitTime: 0, priority: 1 }),
      queued({ id: 'd', submitTime: 0 }),
    ];
    const keys: Record<string, number> = { a: 1, b: 1, c: 1, d: 0 };
    assert.deepEqual(
      sortByKey(jobs, (j) => keys[j.spec.id]!).map((j) => j.spec.id),
      ['d', 'c', 'b', 'a'],
    );
  });

  test('property: sortKeyed on keys computed beforehand equals sortByKey, whatever the input order', () => {
    const key = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(Number.POSITIVE_INFINITY));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.integer({ min: 0, max: 3 })), { maxLength: 30 }), (spec) => {
        const jobs = spec.map(([, t], i) => queued({ id: `j${i}`, submitTime: t }));
        const keyOf = new Map(jobs.map((j, i) => [j, spec[i]![0]]));
        const expected = sortByKey(jobs, (j) => keyOf.get(j)!);
        const reversed = [...jobs].reverse();
        const actual = sortKeyed(reversed.map((job) => ({ job, k: keyOf.get(job)! })));
        assert.deepEqual(actual, expected);
        for (let i = 1; i < actual.length; i++) {
          const [a, b] = [actual[i - 1]!, actual[i]!];
          const d = keyOf.get(a)! - keyOf.get(b)!;
          assert.ok(d < 0 || ((d === 0 || Number.isNaN(d)) && byPriorityThenArrival(a, b) < 0));
        }
      }),
      { numRuns: 200, seed: 5 },
    );
  });
});
