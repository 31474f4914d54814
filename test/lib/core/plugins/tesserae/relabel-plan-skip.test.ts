import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import { type Allocation, allocationGpuKeys } from '../../../../../lib/core/model/plan.ts';
import { relabelPlan } from '../../../../../lib/core/plugins/tesserae/relabel-plan.ts';
import { cluster, on } from '../../../../support/fixtures.ts';

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

/**
 * A round on a cluster of several racks: the current plan placed consolidated (multi-host jobs within a rack when
 * they fit, some jobs packed in pairs), and a logical plan that keeps most jobs where they are and, in a few racks,
 * drops jobs, re-places them elsewhere (logical names, as a placement gives) and starts new ones.
 */
const roundArb = fc
  .record({
    racks: fc.integer({ min: 2, max: 5 }),
    hostsPerRack: fc.integer({ min: 1, max: 3 }),
    gpusPerHost: fc.constantFrom(2, 4),
    sizes: fc.array(fc.constantFrom(1, 1, 1, 2, 4, 8), { minLength: 2, maxLength: 24 }),
    fate: fc.array(fc.constantFrom('keep', 'keep', 'keep', 'keep', 'drop', 'move'), {
      minLength: 24,
      maxLength: 24,
    }),
    changedRacks: fc.integer({ min: 0, max: 2 }),
    arrivals: fc.array(fc.constantFrom(1, 2, 4), { maxLength: 4 }),
    packEvery: fc.integer({ min: 2, max: 6 }),
  })
  .map(({ racks, hostsPerRack, gpusPerHost, sizes, fate, changedRacks, arrivals, packEvery }) => {
    const c = cluster([{ gpuType: 'A100', hosts: racks * hostsPerRack, gpusPerHost, hostsPerRack }]);
    const rackOf = new Map(c.hosts.map((h) => [h.id, h.rack]));
    const rackNames = [...new Set(c.hosts.map((h) => h.rack))];
    const changing = new Set(rackNames.slice(0, changedRacks));

    const free = new FreeGpus(c);
    const current = new Map<string, Allocation>();
    let last: { id: string; a: Allocation; size: number } | undefined;
    sizes.forEach((size, i) => {
      const id = `j${i}`;
      if (last && last.size === size && i % packEvery === 0) {
        current.set(last.id, { ...last.a, packedWith: id });
        current.set(id, { ...last.a, packedWith: last.id });
        last = undefined;
        return;
      }
      const found = free.find('A100', size);
      if (!found) return;
      const a: Allocation = { gpuType: 'A100', slices: found.slices };
      free.reserve(a);
      current.set(id, a);
      last = { id, a, size };
    });

    // Jobs in a changing rack may be dropped or moved; everything else stays (a packed pair changes together).
    const inChanging = (a: Allocation) => a.slices.some((s) => changing.has(rackOf.get(s.hostId)!));
    const logical = new Map<string, Allocation>();
    const next = new FreeGpus(c);
    const moving: [string, Allocation][] = [];
    for (const [id, a] of current) {
      const lead = a.packedWith !== undefined && a.packedWith < id ? a.packedWith : id;
      const f = inChanging(a) ? fate[Number(lead.slice(1)) % fate.length]! : 'keep';
      if (f === 'drop') continue;
      if (f === 'move') moving.push([id, a]);
      else {
        if (!a.packedWith || a.packedWith > id) next.reserve(a);
        logical.set(id, a);
      }
    }
    const placeNew = (id: string, size: number): Allocation | undefined => {
      const found = next.find('A100', size);
      if (!found) return undefined;
      const a: Allocation = { gpuType: 'A100', slices: found.slices };
      next.reserve(a);
      logical.set(id, a);
      return a;
    };
    const moved = new Map<string, Allocation>();
    for (const [id, a] of moving) {
      const partner = a.packedWith;
      const there = partner ? moved.get(partner) : undefined;
      if (partner && there) {
        logical.set(partner, { ...there, packedWith: id });
        logical.set(id, { ...there, packedWith: partner });
        continue;
      }
      const placed = placeNew(id, allocationGpuKeys(a).length);
      if (placed && partner) moved.set(id, placed);
    }
    // A moved job whose partner was not placed runs alone.
    for (const [id, a] of logical)
      if (a.packedWith && logical.get(a.packedWith)?.packedWith !== id) {
        const { packedWith: _gone, ...alone } = a;
        logical.set(id, alone);
      }
    arrivals.forEach((size, i) => {
      placeNew(`new${i}`, size);
    });
    return { c, current, logical };
  });
