import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { criusAllocate } from '../../../../../lib/core/plugins/crius/allocate.ts';
import { DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { cluster, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

describe('Crius allocation in a given order', () => {
  test('a packed job behind its partner holds no GPUs of its own: it competes like a waiting job', () => {
    // One 4-GPU machine. H and G share GPUs 0–1 (G is H's guest); Q waits. Order: H, Q, G.
    const c = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 }]);
    const h = c.hosts[0]!.id;
    const jobs = [
      running({ id: 'H', gpus: 2 }, { ...on('V100-16GB', [h, [0, 1]]), packedWith: 'G' }),
      queued({ id: 'Q', gpus: 2 }),
      running({ id: 'G', gpus: 2 }, { ...on('V100-16GB', [h, [0, 1]]), packedWith: 'H' }),
    ];
    const ctx = stageContext(c, jobs);
    // Without reclaiming or count scaling, only the GPUs the allocation believes free decide.
    const stage = criusAllocate({
      ...DEFAULT_CRIUS_OPTIONS,
      name: 'test',
      opportunistic: false,
      countScaling: false,
    });
    const demands = stage.allocate(jobs, ctx);
    // Counting G as a holder would leave Q without GPUs while GPUs 2–3 stay idle.
    assert.deepEqual([...demands.keys()].sort(), ['H', 'Q']);
  });
});
