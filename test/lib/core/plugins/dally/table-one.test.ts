import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getModelProfile } from '../../../../../lib/core/catalog/models.ts';
import { LEVELS } from '../../../../../lib/core/model/topology.ts';
import {
  DALLY_TABLE_I_COMM,
  DEFAULT_PERF_PARAMETERS,
  mergePerfParameters,
} from '../../../../../lib/core/perf/parameters.ts';
import { dallyPerfParameters } from '../../../../../lib/core/plugins/dally/perf.ts';
import {
  commShare,
  fitLevelScale,
  TABLE_I,
  TABLE_I_MODELS,
} from '../../../../../lib/core/plugins/dally/table-one.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';

// The model the Dally benchmark runs: measured tables where they cover a query, the calibrated analytic model elsewhere
// (8 × A100 is never measured, so Table I's placements are answered by the analytic model with the fitted levelScale).
const calibrated = loadDefaultPerfModel({ parameters: dallyPerfParameters(), onWarning: () => {} });

describe('Dally Table I calibration', () => {
  for (const model of TABLE_I_MODELS) {
    for (const level of LEVELS) {
      test(`${model} at ${level} level is within 5 % of Table I`, () => {
        const ours = commShare(calibrated, getModelProfile(model), level);
        const paper = TABLE_I[model]![level];
        assert.ok(Math.abs(ours / paper - 1) <= 0.05, `${model} ${level}: ours ${ours}, Table I ${paper}`);
      });
    }
  }

  test('the stored levelScale values are what fitLevelScale finds (refit when the compute model changes)', () => {
    const unit = Object.fromEntries(
      TABLE_I_MODELS.map((m) => [m, { overlap: 0, levelScale: { machine: 1, rack: 1, network: 1 } }]),
    );
    const raw = loadDefaultPerfModel({
      parameters: mergePerfParameters(DEFAULT_PERF_PARAMETERS, { comm: { models: unit } }),
      onWarning: () => {},
    });
    for (const model of TABLE_I_MODELS) {
      const fitted = fitLevelScale(raw, getModelProfile(model), TABLE_I[model]!);
      for (const level of LEVELS) {
        const stored = DALLY_TABLE_I_COMM[model]!.levelScale![level]!;
        assert.ok(
          Math.abs(stored / fitted[level] - 1) < 0.001,
          `${model} ${level}: stored ${stored}, fit ${fitted[level]}`,
        );
      }
    }
  });

  test('the overlay changes only the six Table I models', () => {
    const plain = loadDefaultPerfModel({ onWarning: () => {} });
    const query = {
      model: 'transformer',
      batchSize: 128,
      gpuType: 'A100-40GB',
      gpus: 8,
      shape: { level: 'network', hosts: 2 },
    } as const;
    assert.deepEqual(calibrated.throughput(query), plain.throughput(query));
    const resnet = { ...query, model: 'resnet18', batchSize: 1024 };
    assert.notDeepEqual(calibrated.throughput(resnet), plain.throughput(resnet));
  });

  test('the calibrated model keeps ring all-reduce scaling beyond the reference placement', () => {
    // More hosts at a level cost more (2(h−1)/h of the bytes and 2(h−1) latency steps), and a bigger job at the same
    // per-GPU batch communicates more per unit of compute.
    const share = (gpus: number, hosts: number) => {
      const t = calibrated.throughput({
        model: 'bert-large',
        batchSize: 32 * gpus,
        gpuType: 'A100-40GB',
        gpus,
        shape: { level: 'rack', hosts },
      });
      return t.commSeconds / t.computeSeconds;
    };
    assert.ok(share(8, 4) > share(8, 2));
    assert.ok(share(16, 4) > share(8, 2));
  });
});
