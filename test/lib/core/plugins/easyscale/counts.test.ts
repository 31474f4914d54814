import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addCounts,
  allocationCounts,
  countsEqual,
  countsLabel,
  countsWithin,
  minCounts,
  normalizeCounts,
  subtractCounts,
} from '../../../../../lib/core/plugins/easyscale/counts.ts';
import { cluster, on } from '../../../../support/fixtures.ts';

describe('GPU counts per type', () => {
  test('one canonical form: zero entries dropped, keys sorted, bad counts named', () => {
    assert.deepEqual(Object.keys(normalizeCounts({ V100: 1, A100: 0, P100: 2 })), ['P100', 'V100']);
    assert.throws(() => normalizeCounts({ V100: -1 }), /GPU count of V100 must be an integer ≥ 0, got -1/);
    assert.throws(() => normalizeCounts({ V100: 1.5 }), /V100/);
    assert.ok(countsEqual({ V100: 2 }, { V100: 2, T4: 0 }));
    assert.equal(countsLabel({ V100: 2, T4: 1 }), 'T4×1+V100×2');
    assert.equal(countsLabel({}), 'none');
  });

  test('arithmetic', () => {
    assert.deepEqual(addCounts({ V100: 1 }, { T4: 2, V100: 1 }), { T4: 2, V100: 2 });
    assert.deepEqual(subtractCounts({ T4: 2, V100: 2 }, { V100: 2 }), { T4: 2 });
    assert.throws(() => subtractCounts({ V100: 1 }, { V100: 2 }), /cannot take 2 V100 GPUs from 1/);
    assert.deepEqual(minCounts({ T4: 3, V100: 1 }, { T4: 1 }), { T4: 1 });
    assert.ok(countsWithin({ V100: 1 }, { V100: 1, T4: 1 }));
    assert.ok(!countsWithin({ V100: 2 }, { V100: 1 }));
  });

  test('an allocation counts each slice as its host’s type', () => {
    const c = cluster([
      { gpuType: 'V100', hosts: 1, gpusPerHost: 4 },
      { gpuType: 'P100', hosts: 1, gpusPerHost: 2 },
    ]);
    const hostOf = (id: string) => c.hosts.find((h) => h.id === id);
    assert.deepEqual(allocationCounts(on('V100', ['g0-h0', [0, 1]], ['g1-h0', [1]]), hostOf), {
      P100: 1,
      V100: 2,
    });
  });
});
