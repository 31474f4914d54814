import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import { type Allocation, allocationGpuKeys } from '../../../../../lib/core/model/plan.ts';
import { relabelPlan } from '../../../../../lib/core/plugins/tesserae/relabel-plan.ts';
import { cluster, on } from '../../../../support/fixtures.ts';
import { roundArb } from '../../../../support/relabel-rounds.ts';

/**
 * Specification of the skipped classes: relabelling that keeps classes whose jobs all stay put without solving them
 * gives the very plan (and cost) of solving every class, on random rounds where most racks change nothing.
 */
describe('relabelling: classes where nothing moved are kept without solving', () => {
  test('property: same plan and cost as solving every class, by rack and by type', () => {
    let roundsWithAnUntouchedRack = 0;
    fc.assert(
      fc.property(roundArb, ({ c, current, logical }) => {
        if (untouchedRacks(c, current, logical) > 0) roundsWithAnUntouchedRack++;
        const byRack = (h: { rack: string }) => h.rack;
        for (const classOf of [byRack, undefined]) {
          for (const floatSingleGpuWork of [true, false]) {
            const input = {
              hosts: c.hosts,
              current,
              plan: logical,
              floatSingleGpuWork,
              ...(classOf ? { classOf } : {}),
            };
            const solved = relabelPlan({ ...input, skipUnchangedClasses: false });
            const skipped = relabelPlan(input);
            assert.deepEqual([...skipped.plan], [...solved.plan]);
            // Kept allocations stay the very objects, as the full path gives them.
            for (const [id, a] of solved.plan)
              assert.equal(skipped.plan.get(id) === logical.get(id), a === logical.get(id), id);
            assert.equal(skipped.cost, solved.cost);
          }
        }
      }),
      { numRuns: 300, seed: 41 },
    );
    // The generator must exercise the skip: most rounds leave some rack as it was.
    assert.ok(
      roundsWithAnUntouchedRack > 150,
      `only ${roundsWithAnUntouchedRack} rounds had an untouched rack`,
    );
  });

  test('a rack whose jobs all stay keeps them, while a move in another rack is relabelled', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 4, gpusPerHost: 2, hostsPerRack: 2 }]);
    const [h0, , h2, h3] = c.hosts.map((h) => h.id) as [string, string, string, string];
    const a = on('A100', [h0, [0, 1]]);
    const b = on('A100', [h2, [0]]);
    const current = new Map([
      ['A', a],
      ['B', b],
    ]);
    // B is placed on another host of its rack: relabelling renames it back; A's rack is kept as it is.
    const logical = new Map([
      ['A', a],
      ['B', on('A100', [h3, [1]])],
    ]);
    const { plan } = relabelPlan({ hosts: c.hosts, current, plan: logical, classOf: (h) => h.rack });
    assert.equal(plan.get('A'), a);
    assert.deepEqual(allocationGpuKeys(plan.get('B')!), allocationGpuKeys(b));
  });
});

/** Racks whose GPUs carry the same jobs in both plans. */
const untouchedRacks = (
  c: Cluster,
  current: ReadonlyMap<string, Allocation>,
  logical: ReadonlyMap<string, Allocation>,
): number => {
  const rackOf = new Map(c.hosts.map((h) => [h.id, h.rack]));
  const content = (plan: ReadonlyMap<string, Allocation>) => {
    const byRack = new Map<string, string[]>();
    for (const [id, a] of plan)
      for (const s of a.slices)
        for (const g of s.gpus) {
          const rack = rackOf.get(s.hostId)!;
          byRack.set(rack, [...(byRack.get(rack) ?? []), `${id}@${s.hostId}#${g}`]);
        }
    return byRack;
  };
  const before = content(current);
  const after = content(logical);
  const racks = new Set(c.hosts.map((h) => h.rack));
  let n = 0;
  for (const rack of racks)
    if ((before.get(rack) ?? []).sort().join() === (after.get(rack) ?? []).sort().join()) n++;
  return n;
};
