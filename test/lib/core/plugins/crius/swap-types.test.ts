import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { criusAllocate } from '../../../../../lib/core/plugins/crius/allocate.ts';
import { DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { estimatedRemainingIterations } from '../../../../../lib/core/plugins/tessera/order.ts';
import { cluster, linearPerf, on, running } from '../../../../support/fixtures.ts';

describe('type swap by remaining work', () => {
  // One 2-GPU machine of a fast type (A40, twice the speed) and one of a slow type (A10). A short job S runs on
  // the fast machine, a long job L on the slow one; nobody waits.
  const c = cluster([
    { gpuType: 'A40', hosts: 1, gpusPerHost: 2 },
    { gpuType: 'A10', hosts: 1, gpusPerHost: 2 },
  ]);
  const [fast, slow] = [c.hosts[0]!.id, c.hosts[1]!.id];
  const types = (lengthOfLong: number, swap: boolean) => {
    const jobs = [
      running({ id: 'S', gpus: 2, iterations: 1_000 }, on('A40', [fast, [0, 1]])),
      running({ id: 'L', gpus: 2, iterations: lengthOfLong }, on('A10', [slow, [0, 1]])),
    ];
    const ctx = roundContext({
      now: 0,
      cluster: c,
      jobs,
      state: initialSchedulerState(),
      policy: {} as Policy,
      perf: linearPerf({ A40: 2, A10: 1 }),
    });
    const stage = criusAllocate({
      ...DEFAULT_CRIUS_OPTIONS,
      name: 'test',
      countScaling: false,
      ...(swap ? { typeSwap: { remainingIterations: estimatedRemainingIterations, maxPairs: 100 } } : {}),
    });
    const demands = stage.allocate(jobs, ctx);
    return { S: demands.get('S')?.gpuType, L: demands.get('L')?.gpuType };
  };

  test('the job with the most work left gets the fast type when that saves more than the restarts', () => {
    assert.deepEqual(types(1_000_000, true), { S: 'A10', L: 'A40' });
  });

  test('without the swap (Crius), holders keep their types', () => {
    assert.deepEqual(types(1_000_000, false), { S: 'A40', L: 'A10' });
  });

  test('no swap when the gain does not pay for the restarts', () => {
    // L has barely more work than S: exchanging saves less than a restart.
    assert.deepEqual(types(1_010, true), { S: 'A40', L: 'A10' });
  });
});
