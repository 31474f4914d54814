import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { Demand, PlaceStage } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { gavelWorkerPlacement } from '../../../../../lib/core/plugins/gavel/gavel-workers.ts';
import { logicalPlacement } from '../../../../../lib/core/plugins/tesserae/logical-placement.ts';
import { cluster, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 4 }]);
const [h0, h1] = c.hosts.map((h) => h.id) as [string, string];

const place = (stage: PlaceStage, jobs: JobState[]) => {
  const demands = new Map<string, Demand>(
    jobs.map((j) => [j.spec.id, { gpuType: 'A100', gpus: j.spec.gpus }]),
  );
  const ctx = stageContext(c, jobs);
  return stage.place(jobs, demands, new FreeGpus(c), ctx);
};

describe('logical placement (Tesserae: plan from a clean slate)', () => {
  test('ignores where jobs run now and places the largest first, each on one machine', () => {
    // In priority order the 1-GPU jobs come first; placed first, they would split both hosts and leave the
    // 4-GPU job spanning two. Largest first keeps it whole.
    const jobs = [
      running({ id: 'a', gpus: 1 }, on('A100', [h0, [3]])),
      running({ id: 'b', gpus: 1 }, on('A100', [h1, [3]])),
      queued({ id: 'big', gpus: 4 }),
      queued({ id: 'mid', gpus: 2 }),
    ];
    const plan = place(logicalPlacement, jobs);
    assert.equal(plan.size, 4);
    for (const a of plan.values()) assert.equal(a.slices.length, 1);
    const hostOf = (id: string) => plan.get(id)!.slices[0]!.hostId;
    assert.equal(
      new Set([hostOf('mid'), hostOf('a'), hostOf('b')]).size,
      1,
      'small jobs share the other host',
    );
    assert.notEqual(hostOf('big'), hostOf('mid'));
  });
});

describe("Gavel's worker assignment", () => {
  test('keeps a job on its GPUs when still free, and moves it when a larger job took them', () => {
    const jobs = [
      running({ id: 'stay', gpus: 1 }, on('A100', [h1, [2]])),
      running({ id: 'bumped', gpus: 1 }, on('A100', [h0, [1]])),
      queued({ id: 'big', gpus: 4 }),
    ];
    const plan = place(gavelWorkerPlacement, jobs);
    assert.deepEqual(plan.get('stay')!.slices, [{ hostId: h1, gpus: [2] }]);
    assert.deepEqual(plan.get('big')!.slices, [{ hostId: h0, gpus: [0, 1, 2, 3] }]);
    assert.notDeepEqual(plan.get('bumped')!.slices, [{ hostId: h0, gpus: [1] }]);
  });
});
