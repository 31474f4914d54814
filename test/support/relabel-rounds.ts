import fc from 'fast-check';
import { FreeGpus } from '../../lib/core/framework/free-gpus.ts';
import { type Allocation, allocationGpuKeys } from '../../lib/core/model/plan.ts';
import { cluster } from './fixtures.ts';

/**
 * A round on a cluster of several racks: the current plan placed consolidated (multi-host jobs within a rack when
 * they fit, some jobs packed in pairs), and a logical plan that keeps most jobs where they are and, in a few racks,
 * drops jobs, re-places them elsewhere (logical names, as a placement gives) and starts new ones.
 */
export const roundArb = fc
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
