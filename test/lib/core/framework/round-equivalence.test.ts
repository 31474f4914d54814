import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { benchCluster, steadyState } from '../../../../bench/round.ts';
import { roundContext, scheduleRound } from '../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../lib/core/model/job.ts';
import { getPolicy } from '../../../../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../../../../lib/data/perf.ts';

// The round's speed-ups (uniform job copies, the per-round scratch store, relabelling that returns kept allocations
// as they are) must not change a decision: the same input, however its objects were built, gives the same output.
const perf = loadDefaultPerfModel();
const cluster = benchCluster(256);
const standing = (policy: string) => steadyState(cluster, 400, policy, perf, 7);
const serialised = (out: ReturnType<typeof scheduleRound>) =>
  JSON.stringify([[...out.plan], out.actions, out.stats, out.state]);

describe('scheduleRound gives the same output on equal inputs', () => {
  for (const name of ['tessera', 'crius', 'tesserae-t']) {
    test(`${name}: jobs built by spreads, as parsed JSON, or fresh each round`, () => {
      const { policy, states, state, now } = standing(name);
      const round = (jobs: readonly JobState[]) =>
        serialised(scheduleRound({ now, cluster, jobs, state, policy, perf }));
      const asBuilt = round(states);
      assert.equal(round(JSON.parse(JSON.stringify(states)) as JobState[]), asBuilt);
      assert.equal(round(states), asBuilt, 'a second round on the same objects');
      assert.ok(JSON.parse(asBuilt)[2].runningJobs > 0, 'the round places jobs');
    });
  }

  test("Crius's state update reads the round's cached Cells: equal to one computed on a fresh context", () => {
    const policy = getPolicy('crius');
    const standingJobs = standing('crius');
    const { state, now } = standingJobs;
    // Running jobs report throughput (as agents do), so calibration has something to learn.
    const states = standingJobs.states.map((j) =>
      j.allocation ? { ...j, measuredThroughput: 1 + (j.progress % 7) / 10 } : j,
    );
    const input = { now, cluster, jobs: states, state, policy, perf };
    const ctx = roundContext(input);
    const ordered = policy.order.order(states, ctx);
    const plan = new Map(
      [...policy.allocate.allocate(ordered, ctx)].flatMap(([id]) => {
        const held = states.find((j) => j.spec.id === id)?.allocation;
        return held ? [[id, held] as const] : [];
      }),
    );
    const cached = policy.allocate.nextState!(ordered, plan, { ...ctx, state: ctx.state });
    const fresh = policy.allocate.nextState!(ordered, plan, roundContext(input));
    assert.deepEqual(cached, fresh);
    assert.ok(Object.keys(cached.cellCalibration?.cells ?? {}).length > 0, 'running jobs were observed');
  });
});
