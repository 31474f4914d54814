import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { levelOf } from '../../../../../lib/core/framework/free-gpus.ts';
import { DALLY_POLICIES, dallyAuto } from '../../../../../lib/core/plugins/dally/policies.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { simulate } from '../../../../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../../../../support/fixtures.ts';

const C = cluster([{ gpuType: 'A100-40GB', hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
const hostOf = (id: string) => C.hosts.find((h) => h.id === id);
const JOBS = Array.from({ length: 24 }, (_, i) =>
  spec({
    id: `j${String(i).padStart(2, '0')}`,
    gpus: [2, 4, 8, 12, 16, 6][i % 6]!,
    iterations: 20_000 + 7_000 * (i % 5),
    submitTime: i < 12 ? 0 : (i - 12) * 900,
  }),
);

describe('dally policies', () => {
  test('dally, dally-manual, dally-nowait and dally-full are registered', () => {
    for (const name of ['dally', 'dally-manual', 'dally-nowait', 'dally-full'])
      assert.equal(getPolicy(name).name, name);
    assert.equal(DALLY_POLICIES.length, 4);
    assert.match(getPolicy('dally-manual').place.name, /43200s\+43200s/);
    assert.match(getPolicy('dally-nowait').place.name, /0s\+0s/);
    assert.match(getPolicy('dally-full').place.name, /Infinitys\+Infinitys/);
    assert.match(getPolicy('dally').place.name, /auto/);
  });

  for (const name of ['dally', 'dally-manual', 'dally-nowait', 'dally-full']) {
    test(`${name} completes a mixed workload, deterministically`, () => {
      const run = () =>
        simulate({
          cluster: C,
          jobs: JOBS,
          policy: getPolicy(name),
          perf: linearPerf(),
          config: { roundSeconds: 300 },
        });
      const a = run();
      assert.equal(a.jobs.filter((j) => j.outcome === 'completed').length, JOBS.length);
      assert.deepEqual(run().jobs, a.jobs);
    });
  }

  test('dally-full never starts a job on a worse level than its size allows', () => {
    simulate({
      cluster: C,
      jobs: JOBS,
      policy: getPolicy('dally-full'),
      perf: linearPerf(),
      config: { roundSeconds: 300 },
      onRound: (_now, out) => {
        for (const action of out.actions) {
          if (action.kind !== 'start' && action.kind !== 'migrate') continue;
          const a = action.kind === 'start' ? action.allocation : action.to;
          const gpus = a.slices.reduce((n, s) => n + s.gpus.length, 0);
          const level = levelOf(a, hostOf);
          assert.ok(
            gpus > 8 ? level !== 'network' : level === 'machine',
            `${action.jobId}: ${gpus} GPUs at ${level}`,
          );
        }
      },
    });
  });

  test('dally carries the auto-tuner history from round to round', () => {
    let lists = 0;
    simulate({
      cluster: C,
      jobs: JOBS,
      policy: dallyAuto({ historySeconds: 6 * 3600 }),
      perf: linearPerf(),
      config: { roundSeconds: 300 },
      onRound: (_now, out) => {
        lists = Math.max(lists, Object.keys(out.state.delayTuner?.lists ?? {}).length);
      },
    });
    assert.ok(lists >= 2, `lists seen: ${lists}`);
  });
});
