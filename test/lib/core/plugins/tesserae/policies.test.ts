import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JobSpec } from '../../../../../lib/core/model/job.ts';
import type { ColocationEstimate, ModelRef, PerfModel } from '../../../../../lib/core/model/perf.ts';
import { allocationGpuKeys, sameGpus } from '../../../../../lib/core/model/plan.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { simulate } from '../../../../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../../../../support/fixtures.ts';

const TESSERAE_POLICIES = ['tesserae-t', 'tesserae-t-naive', 'tesserae-ftf', 'tiresias-single', 'gavel'];

/** linearPerf where models pair well (speeds sum to 1.2–1.6) except VGG-19 with itself, which does not fit. */
const pairingPerf: PerfModel = {
  ...linearPerf({ A100: 2, V100: 1 }),
  colocation: (_type: string, _gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate => {
    if (a.model === 'vgg19' && b.model === 'vgg19') return { normalized: [0, 0], source: 'analytic' };
    const speed = (m: string) => ({ resnet50: 0.6, vgg19: 0.7, dcgan: 0.8 })[m] ?? 0.6;
    return { normalized: [speed(a.model), speed(b.model)], source: 'measured' };
  },
};

describe('Tesserae policies in the simulator (property tests)', () => {
  test('≤ 2 jobs per GPU, packed pairs symmetric on equal GPUs, right GPU types, every job completes', () => {
    const clusterArb = fc
      .array(
        fc.record({
          gpuType: fc.constantFrom('A100', 'V100'),
          hosts: fc.integer({ min: 1, max: 3 }),
          gpusPerHost: fc.constantFrom(1, 2, 4),
        }),
        { minLength: 1, maxLength: 2 },
      )
      .map((groups) => cluster(groups, 'random'));
    const jobsArb = fc
      .array(
        fc.record({
          gpus: fc.constantFrom(1, 1, 2, 4),
          iterations: fc.integer({ min: 10, max: 3_000 }),
          submitTime: fc.integer({ min: 0, max: 2_000 }),
          model: fc.constantFrom('resnet50', 'vgg19', 'dcgan'),
          packable: fc.boolean(),
        }),
        { minLength: 1, maxLength: 18 },
      )
      .map((rows) => rows.map((r, i): JobSpec => spec({ id: `p${i}`, ...r })));
    fc.assert(
      fc.property(clusterArb, jobsArb, fc.constantFrom(...TESSERAE_POLICIES), (c, jobs, policyName) => {
        const hosts = new Map(c.hosts.map((h) => [h.id, h]));
        const capacity = (type: string) =>
          c.hosts.filter((h) => h.gpuType === type).reduce((n, h) => n + h.gpuCount, 0);
        const result = simulate({
          cluster: c,
          jobs,
          policy: getPolicy(policyName),
          perf: pairingPerf,
          config: { roundSeconds: 60, restartSeconds: 5 },
          onRound: (_, out) => {
            const perGpu = new Map<string, string[]>();
            for (const [id, a] of out.plan) {
              for (const s of a.slices)
                assert.equal(hosts.get(s.hostId)?.gpuType, a.gpuType, `${id} on a wrong host`);
              for (const k of allocationGpuKeys(a)) perGpu.set(k, [...(perGpu.get(k) ?? []), id]);
              if (!a.packedWith) continue;
              const partner = out.plan.get(a.packedWith);
              assert.ok(partner, `${id} packed with ${a.packedWith}, which is not in the plan`);
              assert.equal(partner.packedWith, id, `${a.packedWith} does not name ${id} back`);
              assert.ok(sameGpus(a, partner), `${id} and its partner are on different GPUs`);
              const x = jobs.find((j) => j.id === id)!;
              const y = jobs.find((j) => j.id === a.packedWith)!;
              assert.ok(x.packable && y.packable, 'a no-pack job shares GPUs');
              assert.ok(
                !(x.model === 'vgg19' && y.model === 'vgg19'),
                'a pair that does not fit shares GPUs',
              );
            }
            for (const [gpu, ids] of perGpu) {
              assert.ok(ids.length <= 2, `${gpu} holds ${ids.join(', ')}`);
              if (ids.length === 2)
                assert.equal(out.plan.get(ids[0]!)!.packedWith, ids[1], `${gpu} shared unpaired`);
            }
          },
        });
        for (const job of result.jobs) {
          const fits = job.gpus <= Math.max(capacity('A100'), capacity('V100'));
          assert.equal(
            job.outcome,
            fits ? 'completed' : 'unschedulable',
            `${policyName}: ${job.id} ${job.reason ?? ''}`,
          );
        }
      }),
      { numRuns: 60, seed: 29 },
    );
  });

  test('a packed pair runs concurrently at its co-located speeds', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 1 }]);
    // 1 GPU at 2 it/s alone; together each runs at 0.8 × 2 = 1.6 it/s.
    const perf: PerfModel = {
      ...linearPerf({ A100: 2 }),
      colocation: () => ({ normalized: [0.8, 0.8], source: 'measured' }),
    };
    const jobs = [
      spec({ id: 'a', iterations: 160, submitTime: 0 }),
      spec({ id: 'b', iterations: 160, submitTime: 0 }),
    ];
    const packedRun = simulate({ cluster: c, jobs, policy: getPolicy('tesserae-t'), perf });
    assert.deepEqual(
      packedRun.jobs.map((j) => j.jct),
      [100, 100],
    );
    const alone = simulate({ cluster: c, jobs, policy: getPolicy('tiresias'), perf });
    assert.deepEqual(
      alone.jobs.map((j) => j.jct),
      [80, 160],
    );
  });
});
