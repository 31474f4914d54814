import type { Cluster, Host, HostSlice } from '../model/cluster.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import { type Allocation, allocationGpuCount } from '../model/plan.ts';
import { LEVELS, type Level, levelRank } from '../model/topology.ts';

interface Group {
  readonly hosts: HostEntry[];
  free: number;
}

interface HostEntry {
  readonly host: Host;
  readonly order: number;
  /** Free GPU indices, ascending. */
  free: number[];
  readonly rack: Group;
  readonly network: Group;
}

interface TypeIndex {
  readonly hosts: HostEntry[];
  /** buckets[c] = hosts of this type with exactly c free GPUs, for O(gpusPerHost) best-fit lookups. */
  readonly buckets: Set<HostEntry>[];
  readonly racks: Map<string, Group>;
  readonly networks: Map<string, Group>;
  free: number;
  capacity: number;
}

/**
 * The free GPUs of a cluster during one round: what placement stages reserve from.
 * Lookups are by free-count buckets and per-rack lists so that a 10,000-GPU round stays linear in jobs.
 */
export class FreeGpus {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly types = new Map<GpuTypeId, TypeIndex>();

  constructor(cluster: Cluster) {
    // zone → network → the network's group key, so that a key string is built once per network, not per host.
    const networkKeys = new Map<string, Map<string, string>>();
    const networkKey = (zone: string, network: string): string => {
      let inZone = networkKeys.get(zone);
      if (!inZone) {
        inZone = new Map();
        networkKeys.set(zone, inZone);
      }
      let key = inZone.get(network);
      if (key === undefined) {
        key = `${zone}/${network}`;
        inZone.set(network, key);
      }
      return key;
    };
    cluster.hosts.forEach((host, order) => {
      if (host.state === 'lost' || host.state === 'draining') return;
      let index = this.types.get(host.gpuType);
      if (!index) {
        index = { hosts: [], buckets: [], racks: new Map(), networks: new Map(), free: 0, capacity: 0 };
        this.types.set(host.gpuType, index);
      }
      const free: number[] = [];
      for (let i = 0; i < host.gpuCount; i++) free.push(i);
      const entry: HostEntry = {
        host,
        order,
        free,
        rack: group(index.racks, host.rack),
        network: group(index.networks, networkKey(host.zone, host.network)),
      };
      entry.rack.hosts.push(entry);
      entry.rack.free += host.gpuCount;
      entry.network.hosts.push(entry);
      entry.network.free += host.gpuCount;
      this.hosts.set(host.id, entry);
      index.hosts.push(entry);
      bucket(index, host.gpuCount).add(entry);
      index.free += host.gpuCount;
      index.capacity += host.gpuCount;
    });
  }

  gpuTypes(): GpuTypeId[] {
    return [...this.types.keys()];
  }

  freeOf(type: GpuTypeId): number {
    return this.types.get(type)?.free ?? 0;
  }

  capacityOf(type: GpuTypeId): number {
    return this.types.get(type)?.capacity ?? 0;
  }

  /** Largest host of a type: the biggest job that can be consolidated on one machine. */
  largestHost(type: GpuTypeId): number {
    return Math.max(0, ...(this.types.get(type)?.hosts.map((h) => h.host.gpuCount) ?? []));
  }

  host(hostId: string): Host | undefined {
    return this.hosts.get(hostId)?.host;
  }

  isFree(hostId: string, gpu: number): boolean {
    return this.hosts.get(hostId)?.free.includes(gpu) ?? false;
  }

  /** Whether every GPU of the allocation exists, is usable and is free. */
  canReserve(allocation: Allocation): boolean {
    for (const slice of allocation.slices) {
      if (slice.gpus.length === 0) continue;
      const free = this.hosts.get(slice.hostId)?.free;
      if (!free) return false;
      for (const g of slice.gpus) if (!free.includes(g)) return false;
    }
    return true;
  }

  reserve(allocation: Allocation): void {
    if (!this.tryReserve(allocation)) throw new Error('reserve: GPUs are not free');
  }

  /** Reserves the allocation's GPUs when they are all free (`canReserve`, checked once); whether it did. */
  tryReserve(allocation: Allocation): boolean {
    if (!this.canReserve(allocation)) return false;
    for (const slice of allocation.slices) this.take(slice.hostId, slice.gpus);
    return true;
  }

  release(allocation: Allocation): void {
    for (const slice of allocation.slices) {
      const entry = this.hosts.get(slice.hostId);
      if (!entry) continue;
      const index = this.types.get(entry.host.gpuType)!;
      index.buckets[entry.free.length]!.delete(entry);
      const before = entry.free.length;
      entry.free = sortedUnion(entry.free, slice.gpus);
      const added = entry.free.length - before;
      bucket(index, entry.free.length).add(entry);
      index.free += added;
      entry.rack.free += added;
      entry.network.free += added;
    }
  }

  /**
   * Find `count` free GPUs of `type` at the best consolidation level not worse than `maxLevel`:
   * best fit on one machine, else the rack (then network) with the least sufficient free GPUs, filled from its
   * emptiest hosts so the job spans as few machines as possible. Does not reserve.
   */
  find(
    type: GpuTypeId,
    count: number,
    maxLevel: Level = 'network',
  ): { slices: HostSlice[]; level: Level } | undefined {
    const index = this.types.get(type);
    if (!index || count <= 0 || index.free < count) return undefined;
    for (const level of LEVELS) {
      if (levelRank(level) > levelRank(maxLevel)) break;
      const slices = level === 'machine' ? this.bestHost(index, count) : this.bestGroup(index, level, count);
      if (slices) return { slices, level };
    }
    return undefined;
  }

  /** Network-agnostic first fit: GPUs from hosts in cluster order (the Gandiva/YARN-style baseline placement). */
  firstFit(type: GpuTypeId, count: number): HostSlice[] | undefined {
    const index = this.types.get(type);
    if (!index || count <= 0 || index.free < count) return undefined;
    const slices: HostSlice[] = [];
    let needed = count;
    for (const entry of index.hosts) {
      if (needed === 0) break;
      if (entry.free.length === 0) continue;
      const gpus = entry.free.slice(0, needed);
      slices.push({ hostId: entry.host.id, gpus });
      needed -= gpus.length;
    }
    return needed === 0 ? slices : undefined;
  }

  private take(hostId: string, gpus: readonly number[]): void {
    const entry = this.hosts.get(hostId)!;
    const index = this.types.get(entry.host.gpuType)!;
    index.buckets[entry.free.length]!.delete(entry);
    entry.free = entry.free.filter((g) => !gpus.includes(g));
    bucket(index, entry.free.length).add(entry);
    index.free -= gpus.length;
    entry.rack.free -= gpus.length;
    entry.network.free -= gpus.length;
  }

  private bestHost(index: TypeIndex, count: number): HostSlice[] | undefined {
    for (let c = count; c < index.buckets.length; c++) {
      const set = index.buckets[c];
      if (!set || set.size === 0) continue;
      // First in bucket order: deterministic for the same inputs, and O(1) instead of scanning for the lowest index.
      const best = set.values().next().value;
      if (best) return [{ hostId: best.host.id, gpus: best.free.slice(0, count) }];
    }
    return undefined;
  }

  private bestGroup(index: TypeIndex, level: Level, count: number): HostSlice[] | undefined {
    const groups = level === 'rack' ? index.racks : index.networks;
    let best: Group | undefined;
    for (const candidate of groups.values()) {
      if (candidate.free >= count && (!best || candidate.free < best.free)) best = candidate;
    }
    if (!best) return undefined;
    const sorted = best.hosts
      .filter((h) => h.free.length > 0)
      .sort((a, b) => b.free.length - a.free.length || a.order - b.order);
    const slices: HostSlice[] = [];
    let needed = count;
    for (const entry of sorted) {
      if (needed === 0) break;
      const gpus = entry.free.slice(0, needed);
      slices.push({ hostId: entry.host.id, gpus });
      needed -= gpus.length;
    }
    return slices;
  }
}

/** `free` (ascending, distinct) with `gpus` added: ascending, distinct. */
const sortedUnion = (free: readonly number[], gpus: readonly number[]): number[] => {
  const out = [...free];
  for (const g of gpus) if (!out.includes(g)) out.push(g);
  return out.length === free.length ? out : out.sort((a, b) => a - b);
};

const bucket = (index: TypeIndex, free: number): Set<HostEntry> => {
  while (index.buckets.length <= free) index.buckets.push(new Set());
  return index.buckets[free]!;
};

const group = (map: Map<string, Group>, key: string): Group => {
  let g = map.get(key);
  if (!g) {
    g = { hosts: [], free: 0 };
    map.set(key, g);
  }
  return g;
};

/** Consolidation level of an allocation on a cluster: the smallest tier that contains all its GPUs. */
export const levelOf = (allocation: Allocation, hostOf: (id: string) => Host | undefined): Level => {
  const hosts = allocation.slices.map((s) => hostOf(s.hostId)).filter((h): h is Host => h !== undefined);
  if (hosts.length <= 1) return 'machine';
  const racks = new Set(hosts.map((h) => h.rack));
  return racks.size <= 1 ? 'rack' : 'network';
};

export const shapeOf = (allocation: Allocation, hostOf: (id: string) => Host | undefined) => ({
  level: levelOf(allocation, hostOf),
  hosts: allocation.slices.length,
  gpus: allocationGpuCount(allocation),
});
