import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { ColocationEstimate, ModelRef, PerfModel } from '../../../../../lib/core/model/perf.ts';
import {
  type Allocation,
  allocationGpuCount,
  allocationGpuKeys,
  sameGpus,
} from '../../../../../lib/core/model/plan.ts';
import { maxWeightPacking } from '../../../../../lib/core/plugins/tesserae/max-weight-packing.ts';
import { maxWeightAssignment } from '../../../../../lib/core/solvers/lapjv.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';
import { cluster, linearPerf, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

/** linearPerf with co-location speeds from a table keyed `a+b` (either order); unknown pairs do not fit. */
const tablePerf = (pairs: Record<string, readonly [number, number, string?]>): PerfModel => ({
  ...linearPerf(),
  colocation: (_type: string, _gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate => {
    const direct = pairs[`${a.model}+${b.model}`];
    const swapped = pairs[`${b.model}+${a.model}`];
    const entry = direct ?? (swapped ? ([swapped[1], swapped[0], swapped[2]] as const) : undefined);
    if (!entry) return { normalized: [0, 0], source: 'analytic' };
    return entry[2]
      ? { normalized: [entry[0], entry[1]], source: 'measured', strategy: entry[2] }
      : { normalized: [entry[0], entry[1]], source: 'measured' };
  },
});

const packRound = (
  c: Cluster,
  jobs: JobState[],
  plan: Map<string, Allocation>,
  perf: PerfModel,
  options: Parameters<typeof maxWeightPacking>[0] = {},
) => {
  const ctx = stageContext(c, jobs, perf);
  return maxWeightPacking(options).pack(jobs, plan, new FreeGpus(c), ctx);
};

const c4 = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 4 }]);
const h = c4.hosts[0]!.id;

describe('max-weight packing (Tesserae Alg. 4)', () => {
  test('packs the best pending partner of the same GPU count onto the placed job’s exact GPUs', () => {
    const perf = tablePerf({
      'resnet50+vgg19': [0.7, 0.6],
      'resnet50+dcgan': [0.8, 0.8, '6,18'],
      'resnet50+pointnet': [0.95, 0.95],
    });
    const placed = running({ id: 'P', model: 'resnet50', gpus: 2 }, on('A100', [h, [0, 1]]));
    const jobs = [
      placed,
      queued({ id: 'Q1', model: 'vgg19', gpus: 2 }),
      queued({ id: 'Q2', model: 'dcgan', gpus: 2 }),
      queued({ id: 'Q3', model: 'pointnet', gpus: 1 }), // best pair, but another GPU count: no edge
    ];
    const plan = packRound(c4, jobs, new Map([['P', placed.allocation!]]), perf);
    assert.equal(plan.get('P')!.packedWith, 'Q2');
    assert.equal(plan.get('Q2')!.packedWith, 'P');
    assert.ok(sameGpus(plan.get('Q2'), plan.get('P')));
    assert.equal(plan.get('P')!.packingStrategy, '6,18');
    assert.equal(plan.get('Q2')!.packingStrategy, '6,18');
    assert.equal(plan.has('Q1') || plan.has('Q3'), false);
  });

  test('maximises the total weight rather than taking the best pair first', () => {
    // Greedy takes A+X (1.9) and then B+Y (1.1): 3.0. The optimum is A+Y and B+X: 3.6.
    const perf = tablePerf({
      'resnet50+vgg19': [0.95, 0.95],
      'resnet50+dcgan': [0.9, 0.9],
      'pointnet+vgg19': [0.9, 0.9],
      'pointnet+dcgan': [0.55, 0.55],
    });
    const a = running({ id: 'A', model: 'resnet50' }, on('A100', [h, [0]]));
    const b = running({ id: 'B', model: 'pointnet' }, on('A100', [h, [1]]));
    const jobs = [a, b, queued({ id: 'X', model: 'vgg19' }), queued({ id: 'Y', model: 'dcgan' })];
    const plan = packRound(
      c4,
      jobs,
      new Map([
        ['A', a.allocation!],
        ['B', b.allocation!],
      ]),
      perf,
    );
    assert.equal(plan.get('A')!.packedWith, 'Y');
    assert.equal(plan.get('B')!.packedWith, 'X');
  });

  test('no edges for no-pack, high-priority, deadline or elastic jobs, nor below the minimum gain', () => {
    const perf = tablePerf({ 'resnet50+vgg19': [0.8, 0.8], 'resnet50+dcgan': [0.52, 0.52] });
    const placed = running({ id: 'P', model: 'resnet50' }, on('A100', [h, [0]]));
    const plan = new Map([['P', placed.allocation!]]);
    const guests = [
      queued({ id: 'nopack', model: 'vgg19', packable: false }),
      queued({ id: 'urgent', model: 'vgg19', priority: 1 }),
      queued({ id: 'due', model: 'vgg19', deadline: 100 }),
      queued({ id: 'elastic', model: 'vgg19', elastic: { maxP: 2, minGpus: 1, heterogeneous: false } }),
      queued({ id: 'weak', model: 'dcgan' }), // 1.04 < 1 + 0.05
    ];
    assert.equal(packRound(c4, [placed, ...guests], plan, perf).get('P')!.packedWith, undefined);
    // The host side is checked as well: a no-pack placed job takes no guest.
    const shy = running({ id: 'P', model: 'resnet50', packable: false }, on('A100', [h, [0]]));
    assert.equal(
      packRound(c4, [shy, queued({ id: 'G', model: 'vgg19' })], plan, perf).get('P')!.packedWith,
      undefined,
    );
    // With the minimum gain lowered the weak pair qualifies.
    assert.equal(
      packRound(c4, [placed, guests[4]!], plan, perf, { minGain: 0.01 }).get('P')!.packedWith,
      'weak',
    );
  });

  test('a pending job only joins GPUs of a type it may use; Tiresias (Single) packs 1-GPU jobs only', () => {
    const perf = tablePerf({ 'resnet50+vgg19': [0.8, 0.8] });
    const placed = running({ id: 'P', model: 'resnet50' }, on('A100', [h, [0]]));
    const plan = new Map([['P', placed.allocation!]]);
    const v100Only = queued({ id: 'G', model: 'vgg19', gpuTypes: ['V100'] });
    assert.equal(packRound(c4, [placed, v100Only], plan, perf).get('P')!.packedWith, undefined);
    const wide = running({ id: 'W', model: 'resnet50', gpus: 2 }, on('A100', [h, [0, 1]]));
    const wideGuest = queued({ id: 'G2', model: 'vgg19', gpus: 2 });
    const widePlan = new Map([['W', wide.allocation!]]);
    assert.equal(packRound(c4, [wide, wideGuest], widePlan, perf).get('W')!.packedWith, 'G2');
    assert.equal(
      packRound(c4, [wide, wideGuest], widePlan, perf, { maxJobGpus: 1 }).get('W')!.packedWith,
      undefined,
    );
  });

  test('keeps pairs that already share GPUs when an equal choice exists', () => {
    const perf = tablePerf({ 'resnet50+vgg19': [0.8, 0.8] });
    const p1 = running({ id: 'P1', model: 'resnet50', submitTime: 0 }, on('A100', [h, [0]]));
    const p2 = running(
      { id: 'P2', model: 'resnet50', submitTime: 1 },
      { ...on('A100', [h, [1]]), packedWith: 'G2' },
    );
    const g1 = queued({ id: 'G1', model: 'vgg19', submitTime: 2 });
    const g2 = {
      ...running({ id: 'G2', model: 'vgg19', submitTime: 3 }, { ...on('A100', [h, [1]]), packedWith: 'P2' }),
    };
    const plan = new Map([
      ['P1', p1.allocation!],
      ['P2', { ...on('A100', [h, [1]]) }],
    ]);
    const packedPlan = packRound(c4, [p1, p2, g1, g2], plan, perf);
    assert.equal(packedPlan.get('P2')!.packedWith, 'G2');
    assert.equal(packedPlan.get('P1')!.packedWith, 'G1');
  });

  test('memory: with the real performance model a pair that does not fit is never packed', () => {
    const perf = loadDefaultPerfModel({ onWarning: () => {} });
    const v100 = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 2 }]);
    const host = v100.hosts[0]!.id;
    // Two VGG-19 at batch 64 fill a 16 GB V100 each; DCGAN fits beside one.
    const placed = running({ id: 'P', model: 'vgg19', batchSize: 64 }, on('V100-16GB', [host, [0]]));
    const twin = queued({ id: 'twin', model: 'vgg19', batchSize: 64 });
    const small = queued({ id: 'small', model: 'dcgan', batchSize: 32 });
    assert.equal(perf.analytic.pairFitsInMemory('V100-16GB', 1, placed.spec, twin.spec), false);
    const plan = packRound(v100, [placed, twin, small], new Map([['P', placed.allocation!]]), perf);
    assert.notEqual(plan.get('P')!.packedWith, 'twin');
    assert.ok(!plan.has('twin'));
  });

  test('property: ≤ 2 jobs per GPU, symmetric pairs on equal GPUs, memory kept, and the optimum weight', () => {
    const perf = loadDefaultPerfModel({ onWarning: () => {} });
    const models = [
      ['resnet50', 32],
      ['resnet50', 64],
      ['vgg19', 64],
      ['dcgan', 32],
      ['pointnet', 64],
      ['gpt2-medium', 512],
    ] as const;
    const c = cluster([{ gpuType: 'A100-40GB', hosts: 3, gpusPerHost: 4 }]);
    const jobArb = fc.record({
      model: fc.integer({ min: 0, max: models.length - 1 }),
      gpus: fc.constantFrom(1, 1, 2, 4),
    });
    fc.assert(
      fc.property(fc.array(jobArb, { minLength: 1, maxLength: 16 }), (rows) => {
        const free = new FreeGpus(c);
        const plan = new Map<string, Allocation>();
        const jobs = rows.map((r, i) => {
          const [model, perGpu] = models[r.model]!;
          const batchSize = model === 'gpt2-medium' ? perGpu : perGpu * r.gpus;
          const spec = { id: `j${i}`, model, batchSize, gpus: r.gpus, submitTime: i };
          const found = free.find('A100-40GB', r.gpus, 'machine');
          if (!found) return queued(spec);
          const a = { gpuType: 'A100-40GB', slices: found.slices };
          free.reserve(a);
          plan.set(spec.id, a);
          return running(spec, a);
        });
        const placedIds = new Set(plan.keys());
        const out = packRound(c, jobs, plan, perf);
        const perGpu = new Map<string, number>();
        for (const a of out.values())
          for (const k of allocationGpuKeys(a)) perGpu.set(k, (perGpu.get(k) ?? 0) + 1);
        assert.ok(
          [...perGpu.values()].every((n) => n <= 2),
          'a GPU holds more than two jobs',
        );
        let weight = 0;
        for (const [id, a] of out) {
          if (!a.packedWith) continue;
          const partner = out.get(a.packedWith)!;
          assert.equal(partner.packedWith, id, 'pairs name each other');
          assert.ok(sameGpus(a, partner));
          const job = jobs.find((j) => j.spec.id === id)!;
          const other = jobs.find((j) => j.spec.id === a.packedWith)!;
          assert.equal(allocationGpuCount(a), job.spec.gpus);
          assert.ok(perf.analytic.pairFitsInMemory('A100-40GB', job.spec.gpus, job.spec, other.spec));
          if (placedIds.has(id)) {
            const [x, y] = perf.colocation('A100-40GB', job.spec.gpus, job.spec, other.spec).normalized;
            weight += x + y;
          }
        }
        // The optimum of the same matching spelled out job by job.
        const hosts = jobs.filter((j) => placedIds.has(j.spec.id));
        const guests = jobs.filter((j) => !placedIds.has(j.spec.id));
        const matrix = new Float64Array(hosts.length * guests.length);
        hosts.forEach((hj, i) => {
          guests.forEach((gj, k) => {
            if (hj.spec.gpus !== gj.spec.gpus) return;
            const [x, y] = perf.colocation('A100-40GB', hj.spec.gpus, hj.spec, gj.spec).normalized;
            if (x > 0 && y > 0 && x + y > 1.05) matrix[i * guests.length + k] = x + y;
          });
        });
        const best = maxWeightAssignment(matrix, hosts.length, guests.length).total;
        assert.ok(Math.abs(weight - best) < 1e-9, `packed weight ${weight} vs optimum ${best}`);
      }),
      { numRuns: 150, seed: 23 },
    );
  });
});
