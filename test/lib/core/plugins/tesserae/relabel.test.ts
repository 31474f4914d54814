import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { expandCluster } from '../../../../../lib/clusters/spec.ts';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import { diffActions } from '../../../../../lib/core/framework/round.ts';
import { type Allocation, allocationGpuKeys, sameGpus } from '../../../../../lib/core/model/plan.ts';
import { naiveMigration } from '../../../../../lib/core/plugins/baselines/naive-migration.ts';
import { nodePairCost } from '../../../../../lib/core/plugins/tesserae/node-pair-cost.ts';
import { relabelMigration } from '../../../../../lib/core/plugins/tesserae/relabel.ts';
import {
  amortisedMigrationCost,
  hostClasses,
  relabelPlan,
} from '../../../../../lib/core/plugins/tesserae/relabel-plan.ts';
import { cluster, freeAfter, on, running, stageContext } from '../../../../support/fixtures.ts';

/** Jobs that keep running in both plans but sit on other GPUs: the migrations of a relabelled plan. */
const moved = (current: ReadonlyMap<string, Allocation>, plan: ReadonlyMap<string, Allocation>): string[] =>
  [...plan].filter(([id, a]) => current.has(id) && !sameGpus(current.get(id), a)).map(([id]) => id);

const packed = (a: Allocation, partner: string): Allocation => ({ ...a, packedWith: partner });

describe('migration relabelling (Tesserae Alg. 2/3)', () => {
  test("Figure 1: Gavel's rule migrates all three jobs, relabelling none", () => {
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 4 }]);
    const h = c.hosts[0]!.id;
    const current = new Map([
      ['A', on('A100', [h, [0]])],
      ['B', on('A100', [h, [1]])],
      ['C', on('A100', [h, [2]])],
    ]);
    // The same three jobs, planned on renamed GPUs.
    const logical = new Map([
      ['B', on('A100', [h, [0]])],
      ['C', on('A100', [h, [1]])],
      ['A', on('A100', [h, [2]])],
    ]);
    const jobs = [...current].map(([id, a]) => running({ id }, a));
    const ctx = stageContext(c, jobs);
    const migrations = (stage: typeof naiveMigration) => {
      const plan = stage.relabel(jobs, new Map(logical), freeAfter(c, logical), ctx);
      return diffActions(jobs, plan, []).filter((a) => a.kind === 'migrate').length;
    };
    assert.equal(migrations(naiveMigration), 3);
    assert.equal(migrations(relabelMigration), 0);
  });

  test('Figure 1 across nodes: whole nodes swap names', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 2 }]);
    const [h0, h1] = c.hosts.map((h) => h.id) as [string, string];
    const current = new Map([
      ['A', on('A100', [h0, [0]])],
      ['B', on('A100', [h0, [1]])],
      ['C', on('A100', [h1, [0]])],
      ['D', on('A100', [h1, [1]])],
    ]);
    const logical = new Map([
      ['C', on('A100', [h0, [1]])],
      ['D', on('A100', [h0, [0]])],
      ['B', on('A100', [h1, [0]])],
      ['A', on('A100', [h1, [1]])],
    ]);
    assert.equal(moved(current, logical).length, 4);
    const result = relabelPlan({ hosts: c.hosts, current, plan: logical, floatSingleGpuWork: false });
    assert.deepEqual(moved(current, result.plan), []);
    assert.equal(result.cost, 0);
  });

  test('node-pair cost of Figure 6: jobs 1 and 4 move out and job 6 moves in → 1.5', () => {
    // Job numbers index the GPU-count arrays; all are 1-GPU jobs present in both rounds.
    const gpus = Array(7).fill(1);
    const oldNode = [[1], [4], [2], [3]];
    const newNode = [[2], [3], [6], []];
    const pair = nodePairCost(oldNode, newNode, gpus, gpus);
    assert.equal(pair.cost, 1.5);
    assert.equal(pair.saving, 2); // jobs 2 and 3 stay: 2 × (0.5 + 0.5)
    assert.equal(newNode[pair.oldToNew[2]!]![0], 2);
    assert.equal(newNode[pair.oldToNew[3]!]![0], 3);
  });

  test('node-pair cost amortises over a job’s GPUs and counts packed jobs per GPU', () => {
    // Job 0 uses 2 GPUs, packed with job 1 (2 GPUs) on both; in the new plan job 1 leaves, job 2 (1 GPU) comes.
    const gpus = [2, 2, 1];
    const pair = nodePairCost(
      [
        [0, 1],
        [0, 1],
      ],
      [[0], [0, 2]],
      gpus,
      gpus,
    );
    // Job 1 moves out of two GPUs: 2 × 0.5/2; job 2 moves in on one GPU: 0.5; job 0 stays.
    assert.equal(pair.cost, 1);
  });

  test('keeps multi-GPU jobs consolidated, and packed partners on the same GPUs, on packed plans', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 3, gpusPerHost: 4 }]);
    const [h0, h1, h2] = c.hosts.map((h) => h.id) as [string, string, string];
    const current = new Map([
      ['X', packed(on('A100', [h0, [0, 1, 2, 3]]), 'Y')],
      ['Y', packed(on('A100', [h0, [0, 1, 2, 3]]), 'X')],
      ['Z', packed(on('A100', [h1, [2, 3]]), 'W')],
      ['W', packed(on('A100', [h1, [2, 3]]), 'Z')],
      ['S', on('A100', [h1, [0]])],
    ]);
    // The logical plan puts X+Y on h2, Z+W on h0 GPUs 0-1 next to S, and a new 2-GPU job N beside them.
    const logical = new Map([
      ['X', packed(on('A100', [h2, [0, 1, 2, 3]]), 'Y')],
      ['Y', packed(on('A100', [h2, [0, 1, 2, 3]]), 'X')],
      ['Z', packed(on('A100', [h0, [0, 1]]), 'W')],
      ['W', packed(on('A100', [h0, [0, 1]]), 'Z')],
      ['S', on('A100', [h0, [3]])],
      ['N', on('A100', [h1, [0, 1]])],
    ]);
    const result = relabelPlan({ hosts: c.hosts, current, plan: logical });
    assert.deepEqual(moved(current, result.plan), []);
    const n = result.plan.get('N')!;
    assert.equal(n.slices.length, 1, 'the new 2-GPU job stays on one host');
    assert.equal(n.slices[0]!.gpus.length, 2);
    assert.ok(!allocationGpuKeys(n).some((k) => allocationGpuKeys(result.plan.get('X')!).includes(k)));
    assert.equal(result.plan.get('Y')!.packedWith, 'X');
  });

  test('GPUs holding only 1-GPU jobs float across nodes; without that the node level must move two jobs', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 2 }]);
    const [h0, h1] = c.hosts.map((h) => h.id) as [string, string];
    const current = new Map([
      ['A', on('A100', [h0, [0]])],
      ['B', on('A100', [h0, [1]])],
      ['C', on('A100', [h1, [0]])],
      ['D', on('A100', [h1, [1]])],
    ]);
    // The new plan groups the same jobs differently: {A, C} and {B, D}.
    const logical = new Map([
      ['A', on('A100', [h0, [0]])],
      ['C', on('A100', [h0, [1]])],
      ['B', on('A100', [h1, [0]])],
      ['D', on('A100', [h1, [1]])],
    ]);
    const nodeOnly = relabelPlan({ hosts: c.hosts, current, plan: logical, floatSingleGpuWork: false });
    assert.equal(moved(current, nodeOnly.plan).length, 2);
    assert.equal(nodeOnly.cost, 2);
    const floating = relabelPlan({ hosts: c.hosts, current, plan: logical });
    assert.deepEqual(moved(current, floating.plan), []);
    assert.equal(floating.cost, 0);
  });

  test('property: a valid renaming, no more costly than the identity, consolidation and pairs kept', () => {
    fc.assert(
      fc.property(planPairArb, ({ c, current, logical }) => {
        for (const floatSingleGpuWork of [false, true]) {
          const result = relabelPlan({ hosts: c.hosts, current, plan: logical, floatSingleGpuWork });
          assert.ok(
            result.cost <= amortisedMigrationCost(current, logical) + 1e-9,
            'worse than the identity',
          );
          assert.ok(Math.abs(result.cost - amortisedMigrationCost(current, result.plan)) < 1e-9);
          // Occupancy is a renaming: every GPU holds as many jobs as its logical counterpart did.
          const occupancy = (plan: ReadonlyMap<string, Allocation>) =>
            [...countPerGpu(plan).values()].sort((a, b) => a - b);
          assert.deepEqual(occupancy(result.plan), occupancy(logical));
          for (const [id, a] of result.plan) {
            const before = logical.get(id)!;
            assert.equal(a.slices.length, before.slices.length, `${id} changed its host count`);
            assert.deepEqual(
              a.slices.map((s) => s.gpus.length).sort(),
              before.slices.map((s) => s.gpus.length).sort(),
            );
            if (a.packedWith) assert.ok(sameGpus(a, result.plan.get(a.packedWith)), `${id} left its partner`);
          }
          if (current.size > 0 && [...current.values()].every((a) => allocationGpuKeys(a).length === 1)) {
            // With only 1-GPU jobs the amortised cost is the migration count.
            assert.equal(moved(current, result.plan).length, Math.round(result.cost));
          }
        }
      }),
      { numRuns: 200, seed: 17 },
    );
  });

  test('property: host classes grouped once beforehand give the same plan and cost as grouping them per call', () => {
    fc.assert(
      fc.property(planPairArb, ({ c, current, logical }) => {
        const byRack = (h: { rack: string }) => h.rack;
        for (const classOf of [undefined, byRack]) {
          const classes = hostClasses(c.hosts, classOf);
          const input = { hosts: c.hosts, current, plan: logical, ...(classOf ? { classOf } : {}) };
          const fresh = relabelPlan(input);
          // The same grouping serves two calls in a row (a stage keeps it per cluster).
          for (let call = 0; call < 2; call++) {
            const reused = relabelPlan({ ...input, classes });
            assert.deepEqual(reused.plan, fresh.plan);
            assert.equal(reused.cost, fresh.cost);
          }
        }
      }),
      { numRuns: 100, seed: 23 },
    );
  });

  // Its speed is measured by `tessera bench tesserae` (scalability rows), not asserted here: machines are noisy.
  test('relabels a 10,240-GPU cluster with 10,000 jobs, moving less than half of what the logical plan would', () => {
    const c = expandCluster({
      name: 'scale',
      groups: [{ gpuType: 'A100-40GB', hosts: 1280, gpusPerHost: 8, hostsPerRack: 40 }],
    });
    const sizes = Array.from({ length: 10_000 }, (_, i) => [1, 1, 1, 2, 2, 4, 1, 8, 1, 2][i % 10]!);
    const place = (order: number[]) => {
      const free = new FreeGpus(c);
      const plan = new Map<string, Allocation>();
      for (const i of order) {
        const found = free.find('A100-40GB', sizes[i]!);
        if (!found) continue;
        const a = { gpuType: 'A100-40GB', slices: found.slices };
        free.reserve(a);
        plan.set(`j${i}`, a);
      }
      return plan;
    };
    const current = place(sizes.map((_, i) => i));
    // Next round: a tenth of the jobs are gone and the rest are planned from a clean slate, largest first.
    const next = sizes
      .map((_, i) => i)
      .filter((i) => i % 10 !== 3)
      .sort((a, b) => sizes[b]! - sizes[a]! || a - b);
    const logical = place(next);
    const result = relabelPlan({ hosts: c.hosts, current, plan: logical });
    assert.ok(moved(current, result.plan).length < moved(current, logical).length / 2);
  });

  test('rejects a plan on a host that is not usable', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 2 }]);
    assert.throws(
      () =>
        relabelPlan({
          hosts: c.hosts,
          current: new Map(),
          plan: new Map([['x', on('A100', ['nope', [0]])]]),
        }),
      /job x is planned on host nope, not a usable host/,
    );
    assert.throws(
      () =>
        relabelPlan({
          hosts: c.hosts,
          current: new Map(),
          plan: new Map([['x', on('A100', [c.hosts[0]!.id, [5]])]]),
        }),
      /GPU 5 of .* which has 2/,
    );
  });
});

const countPerGpu = (plan: ReadonlyMap<string, Allocation>): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const a of plan.values())
    for (const k of allocationGpuKeys(a)) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
};

/**
 * Two random plans on a small cluster, each placed consolidated by FreeGpus with some jobs packed in pairs of
 * equal size: the current one (physical) and a new one (logical) with some jobs gone and some new.
 */
const planPairArb = fc
  .record({
    hosts: fc.integer({ min: 1, max: 4 }),
    gpusPerHost: fc.constantFrom(1, 2, 4),
    sizes: fc.array(fc.constantFrom(1, 1, 1, 2, 4), { minLength: 1, maxLength: 14 }),
    keep: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
    orderSeed: fc.integer({ min: 0, max: 1000 }),
    packEvery: fc.integer({ min: 2, max: 5 }),
  })
  .map(({ hosts, gpusPerHost, sizes, keep, orderSeed, packEvery }) => {
    const c = cluster([{ gpuType: 'A100', hosts, gpusPerHost }]);
    const build = (ids: number[]) => {
      const free = new FreeGpus(c);
      const plan = new Map<string, Allocation>();
      let lastHost: { id: string; a: Allocation; size: number } | undefined;
      for (const i of ids) {
        const size = sizes[i]!;
        if (lastHost && lastHost.size === size && i % packEvery === 0) {
          plan.set(lastHost.id, packed(lastHost.a, `j${i}`));
          plan.set(`j${i}`, packed(lastHost.a, lastHost.id));
          lastHost = undefined;
          continue;
        }
        const found = free.find('A100', size);
        if (!found) continue;
        const a = { gpuType: 'A100', slices: found.slices };
        free.reserve(a);
        plan.set(`j${i}`, a);
        lastHost = { id: `j${i}`, a, size };
      }
      return plan;
    };
    const ids = sizes.map((_, i) => i);
    const current = build(ids);
    const shuffled = ids
      .filter((i) => keep[i])
      .sort((a, b) => ((a * 7919 + orderSeed) % 101) - ((b * 7919 + orderSeed) % 101));
    const logical = build(shuffled);
    return { c, current, logical };
  });

describe('relabelling output', () => {
  test('a job renamed onto its own GPUs keeps its allocation object; unsorted GPUs come back sorted', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 4 }]);
    const [h0, h1] = c.hosts.map((h) => h.id) as [string, string];
    const kept = on('A100', [h0, [0, 1]]);
    const unsorted = on('A100', [h1, [3, 2]]);
    const current = new Map([
      ['A', kept],
      ['B', unsorted],
    ]);
    const { plan } = relabelPlan({ hosts: c.hosts, current, plan: current });
    assert.equal(plan.get('A'), kept);
    assert.notEqual(plan.get('B'), unsorted);
    assert.deepEqual(plan.get('B'), on('A100', [h1, [2, 3]]));
  });
});
