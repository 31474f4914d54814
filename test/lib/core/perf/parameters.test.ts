import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  commParametersFor,
  DEFAULT_PERF_PARAMETERS,
  mergePerfParameters,
  validatePerfParameters,
} from '../../../../lib/core/perf/parameters.ts';

describe('performance parameters', () => {
  test('the defaults are valid and survive a JSON round trip (they are data)', () => {
    const copy = JSON.parse(JSON.stringify(DEFAULT_PERF_PARAMETERS));
    assert.deepEqual(copy, DEFAULT_PERF_PARAMETERS);
    assert.equal(validatePerfParameters(copy), copy);
  });

  test('overrides merge per section and per model; what they omit keeps its value', () => {
    const once = mergePerfParameters(DEFAULT_PERF_PARAMETERS, {
      tiers: { network: { latencyUs: 80 } },
      comm: { models: { resnet18: { levelScale: { rack: 2 }, overlap: 0.2 } } },
    });
    const twice = mergePerfParameters(once, {
      comm: { models: { resnet18: { levelScale: { network: 30 } } } },
    });
    assert.deepEqual(twice.tiers.network, {
      bandwidthFactor: DEFAULT_PERF_PARAMETERS.tiers.network.bandwidthFactor,
      latencyUs: 80,
    });
    assert.deepEqual(twice.tiers.rack, DEFAULT_PERF_PARAMETERS.tiers.rack);
    const comm = commParametersFor(twice, 'resnet18');
    assert.deepEqual(comm.levelScale, { machine: 1, rack: 2, network: 30 });
    assert.equal(comm.overlap, 0.2);
    assert.equal(comm.bucketBytes, DEFAULT_PERF_PARAMETERS.comm.default.bucketBytes);
    assert.equal(commParametersFor(twice, 'resnet50'), twice.comm.default);
  });

  test('out-of-range values are rejected with their path', () => {
    assert.throws(
      () =>
        validatePerfParameters(
          mergePerfParameters(DEFAULT_PERF_PARAMETERS, {
            comm: { models: { x: { levelScale: { rack: -1 } } } },
          }),
        ),
      /comm\.models\.x\.levelScale\.rack must be a number ≥ 0, got -1/,
    );
    assert.throws(
      () =>
        validatePerfParameters(
          mergePerfParameters(DEFAULT_PERF_PARAMETERS, { familyEfficiency: { cnn: 0 } }),
        ),
      /familyEfficiency\.cnn must be a number > 0, got 0/,
    );
    assert.throws(
      () =>
        validatePerfParameters(
          mergePerfParameters(DEFAULT_PERF_PARAMETERS, { interference: { contention: 1.5 } }),
        ),
      /interference\.contention must be ≤ 1/,
    );
  });
});
