import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { allocationGpuCount } from '../../../lib/core/model/plan.ts';
import { AnalyticPerfModel } from '../../../lib/core/perf/analytic.ts';
import { UserModelPerfModel } from '../../../lib/core/perf/user-models.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { loadWorkload, runPolicies } from '../../../lib/sim/run.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { SimulatedProfiles, traceModels } from '../../../lib/sim/user-models.ts';
import { cluster, running } from '../../support/fixtures.ts';

const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/own-models.yaml', import.meta.url));

describe('models outside the catalog in the simulator', () => {
  const workload = loadWorkload({ trace: EXAMPLE, cluster: 'tesserae-32', seed: 3 });

  test('a jobs file with user models becomes jobs the scheduler and the executor both know', () => {
    assert.deepEqual(workload.workloadIssues, []);
    assert.equal(workload.jobs.length, 5);
    const llm = workload.jobs.find((j) => j.id === 'tuned-llm')!;
    assert.deepEqual(llm.userModel, { name: 'acme/llm-350m' });
    const q = {
      model: llm.model,
      batchSize: 16,
      gpuType: 'A100-40GB',
      gpus: 4,
      shape: { level: 'machine' as const, hosts: 1 },
    };
    const told = workload.perf.throughput(q).iterationsPerSecond;
    const real = workload.truth.throughput(q).iterationsPerSecond;
    assert.ok(told > 0 && real > 0);
    assert.ok(real > 1.5 * told, `the estimate is pessimistic: told ${told}, really ${real}`);
  });

  for (const policy of ['tessera', 'fifo', 'gavel']) {
    test(`${policy}: every job completes; the estimated one never runs below its request or beside a partner`, () => {
      const result = simulate({
        cluster: workload.cluster,
        jobs: workload.jobs,
        policy: getPolicy(policy),
        perf: workload.perf,
        truth: workload.truth,
        onRound: (_now, out) => {
          const a = out.plan.get('tuned-llm');
          if (!a) return;
          assert.ok(allocationGpuCount(a) >= 4, `${allocationGpuCount(a)} GPUs`);
          assert.equal(a.packedWith, undefined);
          for (const other of out.plan.values()) assert.notEqual(other.packedWith, 'tuned-llm');
        },
      });
      assert.equal(result.jobs.filter((j) => j.outcome === 'completed').length, 5);
    });
  }

  test('runPolicies compares policies on it', () => {
    const runs = runPolicies(workload, ['tessera', 'fifo'], {});
    assert.deepEqual(
      runs.map((r) => r.summary.completed),
      [5, 5],
    );
  });
});

describe('SimulatedProfiles', () => {
  test('reports of a user model calibrate the scheduler’s figures to what the executor measured', () => {
    const base = new AnalyticPerfModel();
    const rows = [
      {
        id: 'a',
        submitTime: 0,
        gpus: 2,
        batchSize: 32,
        iterations: 100,
        model: 'acme/net',
        actualProfile: { parameters: 3e8, flopsPerSample: 1e12, activationBytesPerSample: 1e8 },
      },
    ];
    const { perf, truth } = traceModels(rows, base);
    assert.ok(perf instanceof UserModelPerfModel);
    const model = [...perf.entries.keys()][0]!;
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 8 }]);
    const q = {
      model,
      batchSize: 32,
      gpuType: 'A100',
      gpus: 2,
      shape: { level: 'machine' as const, hosts: 1 },
    };
    const real = truth.throughput(q).iterationsPerSecond;
    const profiles = new SimulatedProfiles(perf);
    assert.equal(profiles.perf(), perf);
    const job = running(
      { id: 'a', model, batchSize: 32, gpus: 2, userModel: { name: 'acme/net' } },
      { gpuType: 'A100', slices: [{ hostId: c.hosts[0]!.id, gpus: [0, 1] }] },
      { measuredThroughput: real },
    );
    profiles.record([job], (id) => c.hosts.find((h) => h.id === id));
    const before = perf.throughput(q).iterationsPerSecond;
    const after = profiles.perf().throughput(q).iterationsPerSecond;
    assert.ok(Math.abs(before / real - 1) > 0.3, `before ${before} vs ${real}`);
    assert.ok(Math.abs(after / real - 1) < 1e-9, `after ${after} vs ${real}`);
  });
});
