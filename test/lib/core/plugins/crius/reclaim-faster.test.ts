import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { type CriusAllocateOptions, criusAllocate } from '../../../../../lib/core/plugins/crius/allocate.ts';
import { DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// One machine of 4 V100s (twice as fast) and one of 4 T4s. L runs on the 4 V100s, M on 2 T4s; A (2 GPUs) waits.
const c = cluster([
  { gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'T4', hosts: 1, gpusPerHost: 4 },
]);
const v100 = c.hosts.find((h) => h.gpuType === 'V100-16GB')!.id;
const t4 = c.hosts.find((h) => h.gpuType === 'T4')!.id;
const m = running({ id: 'M', gpus: 2 }, on('T4', [t4, [0, 1]]));

const allocate = (jobs: JobState[], overrides: Partial<CriusAllocateOptions>) => {
  const ctx = roundContext({
    now: 0,
    cluster: c,
    jobs,
    state: initialSchedulerState(),
    policy: {} as Policy,
    perf: linearPerf({ 'V100-16GB': 2, T4: 1 }),
  });
  // No scaling moves (depth 0): the rule alone decides. With moves, a displaced job competing again may still move
  // the job that displaced it within the round (a limit of the rule, see reclaim-faster.ts).
  const stage = criusAllocate({
    ...DEFAULT_CRIUS_OPTIONS,
    name: 'test',
    countScaling: false,
    depth: 0,
    ...overrides,
  });
  return stage.allocate(jobs, ctx);
};

describe('reclaimFaster: a waiting job takes a clearly faster Cell from jobs later in the order', () => {
  const a = queued({ id: 'A', gpus: 2 });
  const l = running({ id: 'L', gpus: 4 }, on('V100-16GB', [v100, [0, 1, 2, 3]]));

  test('without the rule, the job ahead in the order is admitted on the slow type (Crius: free GPUs first)', () => {
    const demands = allocate([a, l, m], {});
    assert.equal(demands.get('A')?.gpuType, 'T4');
    assert.equal(demands.get('L')?.gpuType, 'V100-16GB');
  });

  test('with it, the job ahead gets the fast type and the displaced job competes again after it', () => {
    const demands = allocate([a, l, m], { reclaimFaster: { minGain: 0.1, victim: () => true } });
    assert.equal(demands.get('A')?.gpuType, 'V100-16GB');
    assert.equal(demands.get('A')?.gpus, 2);
    // L competed again after A, ahead of M: it takes the T4s from M (Crius's opportunistic rule), and M the two
    // V100s A left.
    assert.equal(demands.get('L')?.gpuType, 'T4');
    assert.equal(demands.get('M')?.gpuType, 'V100-16GB');
  });

  test('only jobs later in the order are displaced', () => {
    const demands = allocate([l, a, m], { reclaimFaster: { minGain: 0.1, victim: () => true } });
    assert.equal(demands.get('L')?.gpuType, 'V100-16GB');
    assert.equal(demands.get('A')?.gpuType, 'T4');
  });

  test('only jobs the victim rule allows are displaced (tessera: elastic jobs, which fall back on spare GPUs)', () => {
    const demands = allocate([a, l, m], {
      reclaimFaster: { minGain: 0.1, victim: (j) => j.spec.elastic !== undefined },
    });
    assert.equal(demands.get('A')?.gpuType, 'T4');
    const elastic = running(
      { id: 'L', gpus: 4, elastic: { maxP: 4, minGpus: 0, heterogeneous: false } },
      on('V100-16GB', [v100, [0, 1, 2, 3]]),
    );
    const again = allocate([a, elastic, m], {
      reclaimFaster: { minGain: 0.1, victim: (j) => j.spec.elastic !== undefined },
    });
    assert.equal(again.get('A')?.gpuType, 'V100-16GB');
  });

  test('a gain below minGain displaces nobody', () => {
    const demands = allocate([a, l, m], { reclaimFaster: { minGain: 100, victim: () => true } });
    assert.equal(demands.get('A')?.gpuType, 'T4');
    assert.equal(demands.get('L')?.gpuType, 'V100-16GB');
  });
});
