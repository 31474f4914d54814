import type { Cluster, Host, HostSlice } from '../model/cluster.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import { type Allocation, allocationGpuCount } from '../model/plan.ts';
import { LEVELS, type Level, levelRank } from '../model/topology.ts';
import { memoKey, type RoundMemo } from './round-memo.ts';

/**
 * What never changes about a cluster's usable hosts (their order, types, racks and networks): built once per
 * cluster and shared by every round's FreeGpus, which then only copies a few flat arrays instead of re-indexing
 * every host (a Philly week runs 13,000 rounds on 420 hosts).
 */
interface Layout {
  readonly hosts: readonly Host[];
  /** Host id → index into `hosts` (usable hosts only). */
  readonly indexOf: ReadonlyMap<string, number>;
  /** Per host: its position in the cluster, its type's index, its rack's and its network's group index. */
  readonly order: Int32Array;
  readonly typeOf: Int32Array;
  readonly rackOf: Int32Array;
  readonly networkOf: Int32Array;
  /** Every GPU of a host free, ascending (shared, never mutated: a host's free list is replaced, not edited). */
  readonly allFree: readonly (readonly number[])[];
  readonly types: readonly TypeLayout[];
  readonly typeIndex: ReadonlyMap<GpuTypeId, number>;
  /** Per group (racks and networks of every type): its hosts in cluster order and its capacity. */
  readonly groupHosts: readonly (readonly number[])[];
  readonly groupCapacity: readonly number[];
  /** Per type (in `types` order): its GPUs. */
  readonly typeCapacity: readonly number[];
  /** The empty cluster's free-count buckets (see `Buckets`), copied by every FreeGpus. */
  readonly buckets: Buckets;
}

interface TypeLayout {
  readonly type: GpuTypeId;
  readonly hosts: readonly number[];
  /** Group indices of its racks and networks, in order of first appearance. */
  readonly racks: readonly number[];
  readonly networks: readonly number[];
  readonly capacity: number;
  readonly largestHost: number;
  /** Bucket slots: counts 0 … largestHost, at `bucketBase + count`. */
  readonly bucketBase: number;
}

/**
 * Hosts by (type, free count), each bucket a doubly linked list in insertion order: a host that changes count is
 * unlinked and appended to its new bucket's tail, as a Set's delete and add would order it (placement picks the
 * head, so the order is part of the decision). Flat arrays of small integers: a round copies them in one step each
 * (plain arrays: for a few hundred entries their copy is cheaper than a typed array's allocation).
 */
interface Buckets {
  readonly head: number[];
  readonly tail: number[];
  readonly next: number[];
  readonly prev: number[];
}

const NONE = -1;

const buildLayout = (cluster: Cluster): Layout => {
  const hosts: Host[] = [];
  const order: number[] = [];
  const typeOf: number[] = [];
  const rackOf: number[] = [];
  const networkOf: number[] = [];
  const typeIndex = new Map<GpuTypeId, number>();
  const typeHosts: number[][] = [];
  const typeRacks: Map<string, number>[] = [];
  const typeNetworks: Map<string, number>[] = [];
  const groupHosts: number[][] = [];
  const groupCapacity: number[] = [];
  const groupIn = (groups: Map<string, number>, key: string): number => {
    let g = groups.get(key);
    if (g === undefined) {
      g = groupHosts.length;
      groups.set(key, g);
      groupHosts.push([]);
      groupCapacity.push(0);
    }
    return g;
  };
  cluster.hosts.forEach((host, position) => {
    if (host.state === 'lost' || host.state === 'draining') return;
    let t = typeIndex.get(host.gpuType);
    if (t === undefined) {
      t = typeHosts.length;
      typeIndex.set(host.gpuType, t);
      typeHosts.push([]);
      typeRacks.push(new Map());
      typeNetworks.push(new Map());
    }
    const i = hosts.length;
    const rack = groupIn(typeRacks[t]!, host.rack);
    const network = groupIn(typeNetworks[t]!, `${host.zone}/${host.network}`);
    hosts.push(host);
    order.push(position);
    typeOf.push(t);
    rackOf.push(rack);
    networkOf.push(network);
    typeHosts[t]!.push(i);
    for (const g of [rack, network]) {
      groupHosts[g]!.push(i);
      groupCapacity[g]! += host.gpuCount;
    }
  });
  let slots = 0;
  const types: TypeLayout[] = [...typeIndex.keys()].map((type, t) => {
    const members = typeHosts[t]!;
    let capacity = 0;
    let largestHost = 0;
    for (const i of members) {
      capacity += hosts[i]!.gpuCount;
      largestHost = Math.max(largestHost, hosts[i]!.gpuCount);
    }
    const layout = {
      type,
      hosts: members,
      racks: [...typeRacks[t]!.values()],
      networks: [...typeNetworks[t]!.values()],
      capacity,
      largestHost,
      bucketBase: slots,
    };
    slots += largestHost + 1;
    return layout;
  });
  const buckets: Buckets = {
    head: new Array<number>(slots).fill(NONE),
    tail: new Array<number>(slots).fill(NONE),
    next: new Array<number>(hosts.length).fill(NONE),
    prev: new Array<number>(hosts.length).fill(NONE),
  };
  for (let i = 0; i < hosts.length; i++) link(buckets, types[typeOf[i]!]!.bucketBase + hosts[i]!.gpuCount, i);
  return {
    hosts,
    indexOf: new Map(hosts.map((h, i) => [h.id, i])),
    order: Int32Array.from(order),
    typeOf: Int32Array.from(typeOf),
    rackOf: Int32Array.from(rackOf),
    networkOf: Int32Array.from(networkOf),
    allFree: hosts.map((h) => Array.from({ length: h.gpuCount }, (_, g) => g)),
    types,
    typeIndex,
    groupHosts,
    groupCapacity,
    typeCapacity: types.map((t) => t.capacity),
    buckets,
  };
};

/** Appends host `i` to the tail of bucket `slot`. */
const link = (b: Buckets, slot: number, i: number): void => {
  const last = b.tail[slot]!;
  b.prev[i] = last;
  b.next[i] = NONE;
  if (last === NONE) b.head[slot] = i;
  else b.next[last] = i;
  b.tail[slot] = i;
};

/** Removes host `i` from bucket `slot`. */
const unlink = (b: Buckets, slot: number, i: number): void => {
  const before = b.prev[i]!;
  const after = b.next[i]!;
  if (before === NONE) b.head[slot] = after;
  else b.next[before] = after;
  if (after === NONE) b.tail[slot] = before;
  else b.prev[after] = before;
};

const copyBuckets = (b: Buckets): Buckets => ({
  head: b.head.slice(),
  tail: b.tail.slice(),
  next: b.next.slice(),
  prev: b.prev.slice(),
});

const LAYOUT = memoKey<{ hosts: readonly Host[]; layout: Layout }>('free GPUs layout');

/**
 * The free GPUs of a cluster during one round: what placement stages reserve from.
 * Lookups are by free-count buckets and per-rack lists so that a 10,000-GPU round stays linear in jobs.
 */
export class FreeGpus {
  private readonly layout: Layout;
  /** Per host: its free GPU indices, ascending. */
  private readonly free: (readonly number[])[];
  /** Per group: free GPUs; per type: free GPUs. */
  private readonly groupFree: number[];
  private readonly typeFree: number[];
  /** `mayFindAfterRelease`'s per-group counts, all zero between calls (made on its first call). */
  private back: Int32Array | undefined;
  private readonly buckets: Buckets;

  /** `memo` (optional) keeps the cluster's layout between rounds; without it the layout is built here. */
  constructor(cluster: Cluster, memo?: RoundMemo) {
    this.layout = memo ? memoLayout(cluster, memo) : buildLayout(cluster);
    const layout = this.layout;
    this.free = layout.allFree.slice();
    this.groupFree = layout.groupCapacity.slice();
    this.typeFree = layout.typeCapacity.slice();
    this.buckets = copyBuckets(layout.buckets);
  }

  gpuTypes(): GpuTypeId[] {
    return this.layout.types.map((t) => t.type);
  }

  freeOf(type: GpuTypeId): number {
    const t = this.layout.typeIndex.get(type);
    return t === undefined ? 0 : this.typeFree[t]!;
  }

  capacityOf(type: GpuTypeId): number {
    const t = this.layout.typeIndex.get(type);
    return t === undefined ? 0 : this.layout.types[t]!.capacity;
  }

  /** Largest host of a type: the biggest job that can be consolidated on one machine. */
  largestHost(type: GpuTypeId): number {
    const t = this.layout.typeIndex.get(type);
    return t === undefined ? 0 : this.layout.types[t]!.largestHost;
  }

  host(hostId: string): Host | undefined {
    const i = this.layout.indexOf.get(hostId);
    return i === undefined ? undefined : this.layout.hosts[i];
  }

  isFree(hostId: string, gpu: number): boolean {
    const i = this.layout.indexOf.get(hostId);
    return i !== undefined && this.free[i]!.includes(gpu);
  }

  /** Whether every GPU of the allocation exists, is usable and is free. */
  canReserve(allocation: Allocation): boolean {
    return this.hostsToTake(allocation) !== undefined;
  }

  reserve(allocation: Allocation): void {
    if (!this.tryReserve(allocation)) throw new Error('reserve: GPUs are not free');
  }

  /** Reserves the allocation's GPUs when they are all free (`canReserve`, checked once); whether it did. */
  tryReserve(allocation: Allocation): boolean {
    const hosts = this.hostsToTake(allocation);
    if (!hosts) return false;
    const { slices } = allocation;
    for (let s = 0; s < slices.length; s++) {
      const gpus = slices[s]!.gpus;
      const i = hosts[s]!;
      // A slice without GPUs is taken from an unknown host as from any: nothing leaves it, the counts stay.
      if (i === NONE) continue;
      const left: number[] = [];
      for (const g of this.free[i]!) if (!gpus.includes(g)) left.push(g);
      // As many GPUs as the slice names leave the counts (a slice never names one GPU twice).
      this.recount(i, left, -gpus.length);
    }
    return true;
  }

  /**
   * Each slice's host index when every GPU of the allocation exists, is usable and is free (NONE for an empty slice
   * on an unknown host); undefined otherwise. One host lookup per slice serves both the check and the taking.
   */
  private hostsToTake(allocation: Allocation): number[] | undefined {
    const hosts: number[] = [];
    for (const slice of allocation.slices) {
      const i = this.layout.indexOf.get(slice.hostId);
      if (slice.gpus.length === 0) {
        hosts.push(i ?? NONE);
        continue;
      }
      if (i === undefined) return undefined;
      const free = this.free[i]!;
      for (const g of slice.gpus) if (!free.includes(g)) return undefined;
      hosts.push(i);
    }
    return hosts;
  }

  release(allocation: Allocation): void {
    for (const slice of allocation.slices) {
      const i = this.layout.indexOf.get(slice.hostId);
      if (i === undefined) continue;
      const before = this.free[i]!;
      // Only GPUs the host has: a stale allocation naming more cannot grow it past its size.
      const gpuCount = this.layout.hosts[i]!.gpuCount;
      const after = sortedUnion(before, slice.gpus, gpuCount);
      this.recount(i, after, after.length - before.length);
    }
  }

  /**
   * What `release(allocation)` followed by `reserve(allocation)` leaves, without copying free lists: the counts as
   * they were and each of its hosts moved to the tail of its bucket, in slice order (bucket order is part of later
   * placements, see `Buckets`). Only for an allocation whose GPUs are all reserved, on distinct known hosts, each GPU
   * within its host; otherwise it changes nothing and returns false (the caller then releases and reserves).
   */
  requeue(allocation: Allocation): boolean {
    const { slices } = allocation;
    const { indexOf, hosts, typeOf, types } = this.layout;
    for (let s = 0; s < slices.length; s++) {
      const slice = slices[s]!;
      const i = indexOf.get(slice.hostId);
      if (i === undefined) return false;
      for (let r = 0; r < s; r++) if (slices[r]!.hostId === slice.hostId) return false;
      const free = this.free[i]!;
      const gpuCount = hosts[i]!.gpuCount;
      for (const g of slice.gpus) if (!(g >= 0 && g < gpuCount) || free.includes(g)) return false;
    }
    for (const slice of slices) {
      const i = indexOf.get(slice.hostId)!;
      const slot = types[typeOf[i]!]!.bucketBase + this.free[i]!.length;
      unlink(this.buckets, slot, i);
      link(this.buckets, slot, i);
    }
    return true;
  }

  /**
   * Whether `find(allocation.gpuType, count, maxLevel)` could find GPUs once the allocation's GPUs were released: false
   * only when, even with them, no host (machine), rack or network (up to `maxLevel`) of the type would have `count`
   * free GPUs. Counts only, no copies: a caller can then skip the release and the search (see `requeue`).
   */
  mayFindAfterRelease(allocation: Allocation, count: number, maxLevel: Level): boolean {
    const layout = this.layout;
    const t = layout.typeIndex.get(allocation.gpuType);
    if (t === undefined || count <= 0) return false;
    const index = layout.types[t]!;
    // Machine: a host that already has `count` free GPUs, or one of the allocation's hosts with them back.
    for (let c = count; c <= index.largestHost; c++)
      if (this.buckets.head[index.bucketBase + c] !== NONE) return true;
    // Per rack and network group, the GPUs the allocation would give back: in a zeroed array kept for the round's
    // calls (asked of every multi-host job every round by re-consolidation), zeroed again before returning.
    this.back ??= new Int32Array(this.groupFree.length);
    const back = this.back;
    let found = false;
    for (const slice of allocation.slices) {
      const i = layout.indexOf.get(slice.hostId);
      if (i === undefined) continue;
      // Another type's host (an elastic allocation): its search is not this one's; let the caller search.
      if (layout.typeOf[i] !== t) {
        found = true;
        break;
      }
      const free = this.free[i]!;
      let n = 0;
      for (const g of slice.gpus) if (g >= 0 && g < layout.hosts[i]!.gpuCount && !free.includes(g)) n++;
      if (free.length + n >= count && count <= index.largestHost) {
        found = true;
        break;
      }
      back[layout.rackOf[i]!]! += n;
      back[layout.networkOf[i]!]! += n;
    }
    if (!found && maxLevel !== 'machine') found = this.groupMayFit(index.racks, back, count);
    if (!found && maxLevel !== 'machine' && maxLevel !== 'rack')
      found = this.groupMayFit(index.networks, back, count);
    for (const slice of allocation.slices) {
      const i = layout.indexOf.get(slice.hostId);
      if (i === undefined) continue;
      back[layout.rackOf[i]!] = 0;
      back[layout.networkOf[i]!] = 0;
    }
    return found;
  }

  /** Whether a group has `count` free GPUs with what `back` gives back to it. */
  private groupMayFit(groups: readonly number[], back: Int32Array, count: number): boolean {
    for (const g of groups) if (this.groupFree[g]! + back[g]! >= count) return true;
    return false;
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
    const t = this.layout.typeIndex.get(type);
    if (t === undefined || count <= 0 || this.typeFree[t]! < count) return undefined;
    const index = this.layout.types[t]!;
    for (const level of LEVELS) {
      if (levelRank(level) > levelRank(maxLevel)) break;
      const slices =
        level === 'machine'
          ? this.bestHost(index, count)
          : this.bestGroup(level === 'rack' ? index.racks : index.networks, count);
      if (slices) return { slices, level };
    }
    return undefined;
  }

  /** Network-agnostic first fit: GPUs from hosts in cluster order (the Gandiva/YARN-style baseline placement). */
  firstFit(type: GpuTypeId, count: number): HostSlice[] | undefined {
    const t = this.layout.typeIndex.get(type);
    if (t === undefined || count <= 0 || this.typeFree[t]! < count) return undefined;
    const slices: HostSlice[] = [];
    let needed = count;
    for (const i of this.layout.types[t]!.hosts) {
      if (needed === 0) break;
      const free = this.free[i]!;
      if (free.length === 0) continue;
      const gpus = free.slice(0, needed);
      slices.push({ hostId: this.layout.hosts[i]!.id, gpus });
      needed -= gpus.length;
    }
    return needed === 0 ? slices : undefined;
  }

  /** Host `i` now has `free` GPUs free, `delta` more than before: move it between buckets, update the counts. */
  private recount(i: number, free: readonly number[], delta: number): void {
    const layout = this.layout;
    const t = layout.typeOf[i]!;
    const base = layout.types[t]!.bucketBase;
    unlink(this.buckets, base + this.free[i]!.length, i);
    this.free[i] = free;
    link(this.buckets, base + free.length, i);
    this.typeFree[t]! += delta;
    this.groupFree[layout.rackOf[i]!]! += delta;
    this.groupFree[layout.networkOf[i]!]! += delta;
  }

  private bestHost(index: TypeLayout, count: number): HostSlice[] | undefined {
    for (let c = count; c <= index.largestHost; c++) {
      // First in bucket order: deterministic for the same inputs, and O(1) instead of scanning for the lowest index.
      const best = this.buckets.head[index.bucketBase + c]!;
      if (best !== NONE)
        return [{ hostId: this.layout.hosts[best]!.id, gpus: this.free[best]!.slice(0, count) }];
    }
    return undefined;
  }

  private bestGroup(groups: readonly number[], count: number): HostSlice[] | undefined {
    let best = NONE;
    for (const g of groups) {
      const free = this.groupFree[g]!;
      if (free >= count && (best === NONE || free < this.groupFree[best]!)) best = g;
    }
    if (best === NONE) return undefined;
    const { order, hosts } = this.layout;
    const sorted = this.layout.groupHosts[best]!.filter((i) => this.free[i]!.length > 0).sort(
      (a, b) => this.free[b]!.length - this.free[a]!.length || order[a]! - order[b]!,
    );
    const slices: HostSlice[] = [];
    let needed = count;
    for (const i of sorted) {
      if (needed === 0) break;
      const gpus = this.free[i]!.slice(0, needed);
      slices.push({ hostId: hosts[i]!.id, gpus });
      needed -= gpus.length;
    }
    return slices;
  }
}

/** The cluster's layout, kept in the memo while the cluster's host list is the same. */
const memoLayout = (cluster: Cluster, memo: RoundMemo): Layout => {
  const slot = memo.of(cluster, LAYOUT, () => ({ hosts: cluster.hosts, layout: buildLayout(cluster) }));
  if (slot.hosts !== cluster.hosts) {
    slot.hosts = cluster.hosts;
    slot.layout = buildLayout(cluster);
  }
  return slot.layout;
};

/**
 * `free` (ascending, distinct) with the GPUs of `gpus` in [0, gpuCount) added: ascending, distinct. Each GPU is
 * inserted at its place (a host has a handful of GPUs): no sort, whose scratch copy was a tenth of a busy round's
 * garbage, and no filtered copy of `gpus`.
 */
const sortedUnion = (free: readonly number[], gpus: readonly number[], gpuCount: number): number[] => {
  const out = free.slice();
  for (const g of gpus) {
    if (!(g >= 0 && g < gpuCount)) continue;
    let at = out.length;
    while (at > 0 && out[at - 1]! > g) at--;
    if (at > 0 && out[at - 1] === g) continue;
    out.splice(at, 0, g);
  }
  return out;
};

/** Consolidation level of an allocation on a cluster: the smallest tier that contains all its GPUs. */
export const levelOf = (allocation: Allocation, hostOf: (id: string) => Host | undefined): Level => {
  // Asked of many allocations every round: counted in one pass, without lists of hosts or a set of racks.
  let hosts = 0;
  let rack: string | undefined;
  let oneRack = true;
  for (const slice of allocation.slices) {
    const host = hostOf(slice.hostId);
    if (host === undefined) continue;
    if (hosts++ === 0) rack = host.rack;
    else if (host.rack !== rack) oneRack = false;
  }
  if (hosts <= 1) return 'machine';
  return oneRack ? 'rack' : 'network';
};

export const shapeOf = (allocation: Allocation, hostOf: (id: string) => Host | undefined) => ({
  level: levelOf(allocation, hostOf),
  hosts: allocation.slices.length,
  gpus: allocationGpuCount(allocation),
});
