import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FreeGpus } from '../../../../lib/core/framework/free-gpus.ts';
import { RoundMemo } from '../../../../lib/core/framework/round-memo.ts';
import type { Cluster, HostSlice } from '../../../../lib/core/model/cluster.ts';
import type { Level } from '../../../../lib/core/model/topology.ts';
import { cluster, on } from '../../../support/fixtures.ts';

/**
 * The specification FreeGpus's flat arrays must meet, written as plainly as possible: per host its free GPUs and
 * when its free count last changed (a host whose GPUs are taken or given back goes behind every other host with
 * the same free count); best fit on one machine takes the host that has had its count longest; a group is the rack
 * (or network) with the fewest sufficient free GPUs, first seen first, filled from its emptiest hosts.
 */
class PlainFreeGpus {
  private readonly free = new Map<string, number[]>();
  private readonly since = new Map<string, number>();
  private clock = 0;

  constructor(private readonly c: Cluster) {
    for (const h of this.usable()) {
      this.free.set(
        h.id,
        Array.from({ length: h.gpuCount }, (_, g) => g),
      );
      this.since.set(h.id, this.clock++);
    }
  }

  private usable() {
    return this.c.hosts.filter((h) => h.state !== 'lost' && h.state !== 'draining');
  }

  freeOf(type: string): number {
    return this.usable()
      .filter((h) => h.gpuType === type)
      .reduce((n, h) => n + this.free.get(h.id)!.length, 0);
  }

  tryReserve(slices: readonly HostSlice[]): boolean {
    const ok = slices.every(
      (s) =>
        s.gpus.length === 0 ||
        (this.free.has(s.hostId) && s.gpus.every((g) => this.free.get(s.hostId)!.includes(g))),
    );
    if (!ok) return false;
    for (const s of slices)
      this.set(
        s.hostId,
        this.free.get(s.hostId)!.filter((g) => !s.gpus.includes(g)),
      );
    return true;
  }

  release(slices: readonly HostSlice[]): void {
    for (const s of slices) {
      const free = this.free.get(s.hostId);
      if (free)
        this.set(
          s.hostId,
          [...new Set([...free, ...s.gpus])].sort((a, b) => a - b),
        );
    }
  }

  private set(hostId: string, free: number[]): void {
    this.free.set(hostId, free);
    this.since.set(hostId, this.clock++);
  }

  find(type: string, count: number, maxLevel: Level): { slices: HostSlice[]; level: Level } | undefined {
    const hosts = this.usable().filter((h) => h.gpuType === type);
    if (count <= 0 || this.freeOf(type) < count) return undefined;
    const fits = hosts
      .filter((h) => this.free.get(h.id)!.length >= count)
      .sort(
        (a, b) =>
          this.free.get(a.id)!.length - this.free.get(b.id)!.length ||
          this.since.get(a.id)! - this.since.get(b.id)!,
      );
    if (fits[0])
      return {
        slices: [{ hostId: fits[0].id, gpus: this.free.get(fits[0].id)!.slice(0, count) }],
        level: 'machine',
      };
    for (const level of ['rack', 'network'] as const) {
      if (level === 'network' && maxLevel !== 'network') break;
      if (maxLevel === 'machine') break;
      const keyOf = (h: (typeof hosts)[number]) => (level === 'rack' ? h.rack : `${h.zone}/${h.network}`);
      const groups = [...new Set(hosts.map(keyOf))];
      let best: { key: string; free: number } | undefined;
      for (const key of groups) {
        const free = hosts
          .filter((h) => keyOf(h) === key)
          .reduce((n, h) => n + this.free.get(h.id)!.length, 0);
        if (free >= count && (!best || free < best.free)) best = { key, free };
      }
      if (!best) continue;
      const members = hosts
        .filter((h) => keyOf(h) === best.key && this.free.get(h.id)!.length > 0)
        .sort((a, b) => this.free.get(b.id)!.length - this.free.get(a.id)!.length);
      const slices: HostSlice[] = [];
      let needed = count;
      for (const h of members) {
        if (needed === 0) break;
        const gpus = this.free.get(h.id)!.slice(0, needed);
        slices.push({ hostId: h.id, gpus });
        needed -= gpus.length;
      }
      return { slices, level };
    }
    return undefined;
  }

  firstFit(type: string, count: number): HostSlice[] | undefined {
    if (count <= 0 || this.freeOf(type) < count) return undefined;
    const slices: HostSlice[] = [];
    let needed = count;
    for (const h of this.usable().filter((x) => x.gpuType === type)) {
      const free = this.free.get(h.id)!;
      if (needed === 0) break;
      if (free.length === 0) continue;
      const gpus = free.slice(0, needed);
      slices.push({ hostId: h.id, gpus });
      needed -= gpus.length;
    }
    return needed === 0 ? slices : undefined;
  }
}

const mixed = (): Cluster => {
  const c = cluster([
    { gpuType: 'A100', hosts: 6, gpusPerHost: 8, hostsPerRack: 2 },
    { gpuType: 'T4', hosts: 5, gpusPerHost: 4, hostsPerRack: 3 },
    { gpuType: 'V100', hosts: 2, gpusPerHost: 16, hostsPerRack: 1 },
  ]);
  // One lost and one draining host: they offer nothing.
  return {
    ...c,
    hosts: c.hosts.map((h, i) =>
      i === 1 ? { ...h, state: 'lost' } : i === 7 ? { ...h, state: 'draining' } : h,
    ),
  };
};

const TYPES = ['A100', 'T4', 'V100', 'H100'];
const LEVEL_LIST: Level[] = ['machine', 'rack', 'network'];
const op = fc.record({
  kind: fc.constantFrom('find', 'firstFit', 'release'),
  type: fc.constantFrom(...TYPES),
  count: fc.integer({ min: 0, max: 40 }),
  level: fc.constantFrom(...LEVEL_LIST),
  pick: fc.nat(),
});

describe('FreeGpus (flat arrays and a layout shared through the memo)', () => {
  test('answers every find, first fit and count as the plain specification does, after random reserves and releases', () => {
    const c = mixed();
    const memo = new RoundMemo();
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.boolean(), (ops, warm) => {
        // A warm memo shares the layout of earlier runs: no run may leave anything behind in it.
        const free = new FreeGpus(c, warm ? memo : undefined);
        const plain = new PlainFreeGpus(c);
        const held: HostSlice[][] = [];
        for (const o of ops) {
          if (o.kind === 'release') {
            if (held.length === 0) continue;
            const [slices] = held.splice(o.pick % held.length, 1);
            free.release({ gpuType: o.type, slices: slices! });
            plain.release(slices!);
          } else {
            let slices: HostSlice[] | undefined;
            if (o.kind === 'find') {
              const want = plain.find(o.type, o.count, o.level);
              assert.deepEqual(free.find(o.type, o.count, o.level), want);
              slices = want?.slices;
            } else {
              slices = plain.firstFit(o.type, o.count);
              assert.deepEqual(free.firstFit(o.type, o.count), slices);
            }
            if (slices) {
              assert.equal(free.tryReserve({ gpuType: o.type, slices }), true);
              assert.equal(plain.tryReserve(slices), true);
              held.push(slices);
            }
          }
          for (const t of TYPES) assert.equal(free.freeOf(t), plain.freeOf(t));
        }
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  test('a release of GPUs the host does not have or of a lost host changes nothing', () => {
    const c = mixed();
    const free = new FreeGpus(c, new RoundMemo());
    free.release(on('A100', ['g0-h0', [8, 9]], [c.hosts[1]!.id, [0]]));
    assert.equal(free.freeOf('A100'), 5 * 8);
    assert.equal(free.isFree('g0-h0', 8), false);
  });

  test('a memo keeps one layout per host list: a cluster whose hosts changed is laid out again', () => {
    const c = mixed();
    const memo = new RoundMemo();
    const first = new FreeGpus(c, memo);
    first.reserve(on('T4', [c.hosts[6]!.id, [0, 1, 2, 3]]));
    assert.equal(new FreeGpus(c, memo).freeOf('T4'), 4 * 4);
    const fewer = { ...c, hosts: c.hosts.filter((h) => h.gpuType !== 'T4') };
    assert.equal(new FreeGpus(fewer, memo).freeOf('T4'), 0);
  });
});
