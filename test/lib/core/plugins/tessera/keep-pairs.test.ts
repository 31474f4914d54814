import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { PackStage } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { ColocationEstimate, ModelRef, PerfModel } from '../../../../../lib/core/model/perf.ts';
import { type Allocation, sameGpus } from '../../../../../lib/core/model/plan.ts';
import { keepingPairs } from '../../../../../lib/core/plugins/tessera/keep-pairs.ts';
import { maxWeightPacking } from '../../../../../lib/core/plugins/tesserae/max-weight-packing.ts';
import { cluster, linearPerf, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

/** ResNet-50 and VGG-19 share GPUs at `speed` each (Σ = 2 × speed); other pairs do not fit. */
const pairPerf = (speed: number): PerfModel => ({
  ...linearPerf(),
  colocation: (_t: string, _g: number, a: ModelRef, b: ModelRef): ColocationEstimate => ({
    normalized: a.model !== b.model ? [speed, speed] : [0, 0],
    source: 'measured',
  }),
});

const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 4 }]);
const h = c.hosts[0]!.id;

const pack = (stage: PackStage, jobs: JobState[], plan: Map<string, Allocation>, perf: PerfModel) => {
  const ctx = stageContext(c, jobs, perf);
  return stage.pack(jobs, plan, new FreeGpus(c), ctx);
};

/**
 * Last round G shared GPU 0 with H1. This round H1 and H2 are placed (H1 kept its allocation as it was, partner
 * included) and G waits for GPUs of its own.
 */
const lastRoundPair = () => {
  const h1 = running({ id: 'H1', model: 'resnet50', gpus: 1 }, { ...on('A100', [h, [0]]), packedWith: 'G' });
  const h2 = running({ id: 'H2', model: 'resnet50', gpus: 1 }, on('A100', [h, [1]]));
  const g = running({ id: 'G', model: 'vgg19', gpus: 1 }, { ...on('A100', [h, [0]]), packedWith: 'H1' });
  const plan = new Map([
    ['H1', h1.allocation!],
    ['H2', h2.allocation!],
  ]);
  return { jobs: [h1, h2, g], plan };
};

describe('keeping pairs before packing', () => {
  test('a pair that still gains stays together: the guest is not moved to another partner (no restart)', () => {
    const { jobs, plan } = lastRoundPair();
    const perf = pairPerf(0.7);
    // The matching alone re-pairs G onto H2 (H1 still names G, so it looks taken): G would migrate.
    const plain = pack(maxWeightPacking(), jobs, plan, perf);
    assert.equal(plain.get('G')!.packedWith, 'H2');
    const kept = pack(keepingPairs(maxWeightPacking()), jobs, plan, perf);
    assert.equal(kept.get('G')!.packedWith, 'H1');
    assert.equal(kept.get('H1')!.packedWith, 'G');
    assert.ok(sameGpus(kept.get('G'), jobs[2]!.allocation));
    assert.equal(kept.get('H2')!.packedWith, undefined);
  });

  test('a kept pair hands on the allocations both jobs hold, equal to the ones it would build', () => {
    const { jobs, plan } = lastRoundPair();
    const kept = pack(keepingPairs(maxWeightPacking()), jobs, plan, pairPerf(0.7));
    // Stripped of its partner by the placement, H1's allocation is exactly what it held; so is G's.
    assert.equal(kept.get('H1'), jobs[0]!.allocation);
    assert.equal(kept.get('G'), jobs[2]!.allocation);
    assert.deepEqual(kept.get('H1'), { ...on('A100', [h, [0]]), packedWith: 'G' });
  });

  test('a kept pair whose co-location now names a strategy gets new allocations carrying it', () => {
    const { jobs, plan } = lastRoundPair();
    const perf = pairPerf(0.7);
    const withStrategy: PerfModel = {
      ...perf,
      colocation: (t, g, a, b) => ({ ...perf.colocation(t, g, a, b), strategy: 'dp' }),
    };
    const kept = pack(keepingPairs(maxWeightPacking()), jobs, plan, withStrategy);
    assert.notEqual(kept.get('H1'), jobs[0]!.allocation);
    assert.deepEqual(kept.get('H1'), { ...on('A100', [h, [0]]), packedWith: 'G', packingStrategy: 'dp' });
    assert.deepEqual(kept.get('G'), { ...on('A100', [h, [0]]), packedWith: 'H1', packingStrategy: 'dp' });
  });

  test('a pair that no longer gains is not kept', () => {
    const { jobs, plan } = lastRoundPair();
    const kept = pack(keepingPairs(maxWeightPacking()), jobs, plan, pairPerf(0.5));
    assert.equal(kept.has('G'), false);
    assert.equal(
      kept.get('H1')!.packedWith,
      undefined,
      'H1 runs alone: its old partner does not share its GPUs',
    );
  });

  test('a job whose partner got GPUs of its own runs alone and may take a new guest', () => {
    const h1 = running(
      { id: 'H1', model: 'resnet50', gpus: 1 },
      { ...on('A100', [h, [0]]), packedWith: 'G' },
    );
    const g = running({ id: 'G', model: 'vgg19', gpus: 1 }, { ...on('A100', [h, [0]]), packedWith: 'H1' });
    const q = queued({ id: 'Q', model: 'vgg19', gpus: 1 });
    const plan = new Map([
      ['H1', h1.allocation!],
      ['G', on('A100', [h, [2]])],
    ]);
    const kept = pack(keepingPairs(maxWeightPacking()), [h1, g, q], plan, pairPerf(0.7));
    assert.equal(kept.get('G')!.packedWith, undefined);
    assert.equal(kept.get('H1')!.packedWith, 'Q');
    assert.equal(kept.get('Q')!.packedWith, 'H1');
  });
});
