import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AnalyticPerfModel } from '../../../../lib/core/perf/analytic.ts';
import { MeasuredPerfModel } from '../../../../lib/core/perf/measured.ts';
import { canonicalPlacement } from '../../../../lib/core/perf/pollux.ts';
import { query } from '../../../support/queries.ts';
import { fixtureTables } from '../../data/fixtures/tables.ts';

// Values below are copied from the fixture files (unmodified rows of shared/data).
const measured = new MeasuredPerfModel(fixtureTables(), { comm: new AnalyticPerfModel() });
const at = (...args: Parameters<typeof query>) => measured.tryThroughput(query(...args));

describe('Gavel throughput table', () => {
  test('single-GPU entries are the measured iterations per second', () => {
    assert.deepEqual(at('ResNet-50', 64, 'v100', 1), {
      iterationsPerSecond: 4.394774823323071,
      computeSeconds: 1 / 4.394774823323071,
      commSeconds: 0,
      source: 'measured',
    });
    assert.equal(at('lm', 20, 'K80', 1)?.iterationsPerSecond, 17.142289692304086);
    // A3C has no batch size in Gavel: it is filed under the catalog default (batch 0 = default).
    assert.equal(at('a3c', 0, 'V100', 1)?.iterationsPerSecond, 7.175767179667988);
  });

  test('scale k entries are summed over workers: global iterations/s = value ÷ k, batch = k × per-worker batch', () => {
    const eight = at('resnet50', 8 * 64, 'V100', 8);
    assert.equal(eight?.source, 'measured');
    assert.equal(eight?.iterationsPerSecond, 17.303172756892167 / 8);
    // The split puts the measured single-GPU step in compute, the rest in communication.
    assert.ok(Math.abs((eight?.computeSeconds ?? 0) - 1 / 4.394774823323071) < 1e-12);
    assert.ok((eight?.commSeconds ?? 0) > 0);
  });

  test('unconsolidated (one worker per server) is slower where the data says so', () => {
    const consolidated = at('transformer', 128, 'V100', 2, 'machine', 1);
    const spread = at('transformer', 128, 'V100', 2, 'rack', 2);
    assert.equal(consolidated?.iterationsPerSecond, 15.876496488983058 / 2);
    assert.equal(spread?.iterationsPerSecond, 7.005137811237574 / 2);
    assert.equal(spread?.source, 'measured');
    const r50consolidated = at('resnet50', 32, 'V100', 2, 'machine', 1)?.iterationsPerSecond ?? 0;
    const r50spread = at('resnet50', 32, 'V100', 2, 'rack', 2)?.iterationsPerSecond ?? 0;
    assert.ok(r50spread < r50consolidated);
  });

  test('network level = the rack measurement plus the modelled extra communication', () => {
    const rack = at('transformer', 128, 'V100', 2, 'rack', 2);
    const network = at('transformer', 128, 'V100', 2, 'network', 2);
    assert.equal(network?.source, 'analytic');
    assert.ok((network?.iterationsPerSecond ?? 0) < (rack?.iterationsPerSecond ?? 0));
    assert.equal(network?.computeSeconds, rack?.computeSeconds);
  });

  test('unmeasured GPU counts start from the nearest measured one plus modelled communication', () => {
    const sixteen = at('resnet50', 16 * 64, 'V100', 16);
    const eight = at('resnet50', 8 * 64, 'V100', 8);
    assert.equal(sixteen?.source, 'analytic');
    assert.ok((sixteen?.commSeconds ?? 0) >= (eight?.commSeconds ?? 0));
    // Only a single-GPU measurement: measured compute, modelled communication.
    const two = at('lm', 40, 'V100', 2);
    assert.equal(two?.source, 'analytic');
    assert.equal(two?.computeSeconds, 1 / 64.74245099960703);
  });

  test('queries the tables do not cover are left to the caller', () => {
    assert.equal(at('resnet50', 64, 'A100', 1), undefined);
    assert.equal(at('resnet50', 48, 'V100', 1), undefined); // batch 48 was not measured
    assert.equal(at('resnet50', 100, 'V100', 8), undefined); // 12.5 per worker
    assert.throws(
      () =>
        measured.throughput({
          model: 'resnet50',
          batchSize: 64,
          gpuType: 'A100',
          gpus: 1,
          shape: { level: 'machine', hosts: 1 },
        }),
      /no measured data covers this query/,
    );
  });
});

describe('Pollux placements', () => {
  test('placement ids are the smallest rotation of the GPUs-per-node digits', () => {
    assert.equal(canonicalPlacement([2, 1, 2]), '122');
    assert.equal(canonicalPlacement([2, 1]), '12');
    assert.equal(canonicalPlacement([4, 4]), '44');
    assert.equal(canonicalPlacement([3, 0, 1]), '13');
  });

  test('step times per placement and per-GPU batch, interpolated between measured batches', () => {
    const one = at('imagenet', 20, 'T4', 1);
    assert.deepEqual(one, {
      iterationsPerSecond: 1 / 0.14740917682647706,
      computeSeconds: 0.14740917682647706 - 0.0012090879917144776,
      commSeconds: 0.0012090879917144776,
      source: 'measured',
    });
    const mid = at('resnet50', 24, 'T4', 1);
    const expected = (0.14740917682647706 + 0.20809321403503417) / 2;
    assert.ok(Math.abs(1 / (mid?.iterationsPerSecond ?? 0) - expected) < 1e-12);
    // 4 nodes × 1 GPU, 20 per GPU: placement 1111.
    assert.equal(at('resnet50', 80, 'T4', 4, 'rack', 4)?.source, 'measured');
    // 64 GPUs on 16 nodes comes from scalability.csv.
    assert.equal(at('resnet50', 64 * 20, 'T4', 64, 'rack', 16)?.source, 'measured');
  });
});

describe('measured co-location', () => {
  test('a real Gavel pair, normalised by each job alone', () => {
    const co = measured.tryColocation(
      'V100',
      1,
      { model: 'resnet50', batchSize: 64 },
      { model: 'transformer', batchSize: 64 },
    );
    assert.deepEqual(co, {
      normalized: [2.55026372359856 / 4.394774823323071, 1.7739250679955958 / 8.61775899193302],
      source: 'measured',
    });
  });

  test("Gavel's [0, 0] pair at one GPU is out of memory", () => {
    const co = measured.tryColocation(
      'V100',
      1,
      { model: 'resnet50', batchSize: 128 },
      { model: 'resnet50', batchSize: 64 },
    );
    assert.deepEqual(co, { normalized: [0, 0], source: 'measured' });
  });

  test('a real Blox row on A100, with its pipeline strategy (best of the strategies; file order breaks ties)', () => {
    // BERT-large (global 256) with ResNet-50 at 32 per GPU on 2 GPUs: rows 30–102, 564, 612; 8,16 gives 0.51 + 0.74.
    const co = measured.tryColocation(
      'A100',
      2,
      { model: 'bert-large', batchSize: 256 },
      { model: 'resnet50', batchSize: 64 },
    );
    assert.deepEqual(co, { normalized: [0.51, 0.74], strategy: '8,16', source: 'measured' });
    // Asked the other way round, the same row answers, swapped.
    const swapped = measured.tryColocation(
      'A100',
      2,
      { model: 'resnet50', batchSize: 64 },
      { model: 'bert-large', batchSize: 256 },
    );
    assert.deepEqual(swapped, { normalized: [0.74, 0.51], strategy: '8,16', source: 'measured' });
  });

  test('a Blox pair whose every strategy is 0.0 is not packable', () => {
    const co = measured.tryColocation(
      'A100',
      4,
      { model: 'gpt2-medium', batchSize: 512 },
      { model: 'vgg19', batchSize: 512 },
    );
    assert.deepEqual(co, { normalized: [0, 0], source: 'measured' });
  });

  test('single-GPU Blox rows are read in either order', () => {
    // Row 304: vgg19 32 with resnet50 64 → 0.73, 0.34.
    const co = measured.tryColocation(
      'A100',
      1,
      { model: 'resnet50', batchSize: 64 },
      { model: 'vgg19', batchSize: 32 },
    );
    assert.deepEqual(co, { normalized: [0.34, 0.73], source: 'measured' });
  });

  test('no pair on another GPU type counts as measured', () => {
    assert.equal(
      measured.tryColocation(
        'H100',
        1,
        { model: 'resnet50', batchSize: 64 },
        { model: 'transformer', batchSize: 64 },
      ),
      undefined,
    );
  });
});
