import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Level } from '../../../lib/core/model/topology.ts';
import { AnalyticPerfModel } from '../../../lib/core/perf/analytic.ts';
import { dallyPerfParameters } from '../../../lib/core/plugins/dally/perf.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { cluster, spec } from '../../support/fixtures.ts';

// Exposed communication per job is what Dally's "communication latency" sums: check it on spread placements.
const perf = new AnalyticPerfModel({ parameters: dallyPerfParameters() });

const runAlone = (hostsPerRack: number, hosts: number, gpusPerHost: number, gpus: number) => {
  const c = cluster([{ gpuType: 'A100-40GB', hosts, gpusPerHost, hostsPerRack }]);
  const job = spec({ id: 'j', model: 'resnet18', batchSize: 128 * gpus, gpus, iterations: 5000 });
  const result = simulate({ cluster: c, jobs: [job], policy: getPolicy('dally-nowait'), perf });
  return { job, record: result.jobs[0]! };
};

const expected = (gpus: number, level: Level, hosts: number) =>
  perf.throughput({
    model: 'resnet18',
    batchSize: 128 * gpus,
    gpuType: 'A100-40GB',
    gpus,
    shape: { level, hosts },
  });

describe('exposed communication time per job', () => {
  for (const [name, hostsPerRack, hosts, perHost, gpus, level, spread] of [
    ['one machine', 1, 1, 8, 8, 'machine', 1],
    ['two hosts of one rack', 2, 2, 4, 8, 'rack', 2],
    ['two racks', 1, 2, 4, 8, 'network', 2],
    ['four racks', 1, 4, 2, 8, 'network', 4],
  ] as const) {
    test(`${name}: iterations × the placement's exposed communication per iteration`, () => {
      const { job, record } = runAlone(hostsPerRack, hosts, perHost, gpus);
      const t = expected(gpus, level, spread);
      assert.equal(record.outcome, 'completed');
      assert.ok(Math.abs(record.commSeconds / (job.iterations * t.commSeconds) - 1) < 1e-9);
      assert.ok(Math.abs(record.jct! / (job.iterations / t.iterationsPerSecond) - 1) < 1e-9);
    });
  }

  test('the wider the spread, the more exposed communication (Table I ordering for ResNet-18)', () => {
    const machine = runAlone(1, 1, 8, 8).record.commSeconds;
    const rack = runAlone(2, 2, 4, 8).record.commSeconds;
    const network = runAlone(1, 2, 4, 8).record.commSeconds;
    assert.ok(machine < rack && rack < network, `${machine} < ${rack} < ${network}`);
  });
});
