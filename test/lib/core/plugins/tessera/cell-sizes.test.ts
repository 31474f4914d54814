import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import { allocationGpuCount } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { cellCounts } from '../../../../../lib/core/plugins/crius/cell-counts.ts';
import { tessera } from '../../../../../lib/core/plugins/tessera/policy.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';
import { cluster, queued } from '../../../../support/fixtures.ts';

const perf = loadDefaultPerfModel();
// Two 8-GPU V100 machines. vgg16 at batch 256 does not fit in memory on 2 GPUs (128 a GPU) but does on 4.
const machines = cluster([{ gpuType: 'V100-16GB', hosts: 2, gpusPerHost: 8 }]);
const tooBigAtItsRequest = queued({ id: 'vgg', model: 'vgg16', batchSize: 256, gpus: 2, iterations: 1_000 });
const shape = { gpuType: 'V100-16GB', shape: { level: 'machine', hosts: 1 } } as const;

const round = (policy: string) =>
  scheduleRound({
    now: 0,
    cluster: machines,
    jobs: [tooBigAtItsRequest],
    state: initialSchedulerState(),
    policy: getPolicy(policy),
    perf,
  });

describe('tessera: the counts Crius may give a job decide whether it can ever run', () => {
  test('the premise: no progress at the request, progress at twice it', () => {
    const rate = (gpus: number) =>
      perf.throughput({ model: 'vgg16', batchSize: 256, gpus, ...shape }).iterationsPerSecond;
    assert.equal(rate(2), 0);
    assert.ok(rate(4) > 0);
  });

  test('a job that fits only at a larger Cell runs there, as under crius, instead of ending unschedulable', () => {
    for (const policy of ['crius', 'tessera']) {
      const out = round(policy);
      assert.deepEqual(out.stats.unschedulable, [], policy);
      const a = out.plan.get('vgg');
      assert.ok(a, policy);
      assert.equal(allocationGpuCount(a), 4, policy);
    }
  });

  test('the round is told every count of the Cells: half, the request and twice it', () => {
    const sizes = tessera.allocate.sizes;
    assert.ok(sizes);
    const ctx = { capacity: new Map([['V100-16GB', { gpus: 16, hosts: 2, largestHost: 8 }]]) };
    // The counts read only the capacity and the round's scratch (allowed types); the elastic tier passes them on.
    assert.deepEqual(sizes(tooBigAtItsRequest.spec, roundCtx(ctx)), [1, 2, 4]);
    assert.deepEqual(
      sizes(tooBigAtItsRequest.spec, roundCtx(ctx)),
      cellCounts(tooBigAtItsRequest.spec, roundCtx(ctx), { countScaling: true, oneHostCount: true }),
    );
  });
});

const roundCtx = (partial: { capacity: Map<string, unknown> }) =>
  ({ ...partial, scratch: { get: (_k: unknown, make: () => unknown) => make() } }) as never;
