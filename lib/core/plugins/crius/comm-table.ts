import { getGpuType } from '../../catalog/gpus.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { Link } from '../../perf/collectives.ts';
import { DEFAULT_PERF_PARAMETERS, type PerfParameters } from '../../perf/parameters.ts';

/**
 * Communication cost tables (Crius §5.1: communication depends only on the interconnect and the bytes, so
 * it is profiled offline and interpolated). One table per (collective, GPU type, tier, ranks): seconds vs
 * bytes, read by piecewise-linear interpolation. Defaults are sampled from an α-β model of the link;
 * measured points replace a table when an operator provides them.
 */

export const COLLECTIVES = ['all-reduce', 'all-gather', 'all-to-all', 'send-recv'] as const;
export type Collective = (typeof COLLECTIVES)[number];

/** `intra` = between GPUs of one host (NVLink/NVSwitch/PCIe); `rack`/`network` = host NICs at that tier. */
export const TIERS = ['intra', 'rack', 'network'] as const;
export type Tier = (typeof TIERS)[number];

export interface CommPoint {
  readonly bytes: number;
  readonly seconds: number;
}

/** Measured latencies of one collective on one GPU type, tier and group size. */
export interface CommMeasurement {
  readonly collective: Collective;
  readonly gpuType: GpuTypeId;
  readonly tier: Tier;
  readonly ranks: number;
  readonly points: readonly CommPoint[];
}

/**
 * α-β cost of one collective. Ring all-reduce: 2(n−1)/n · b/β + 2(n−1)α; all-gather and all-to-all of b
 * bytes in total: (n−1)/n · b/β + (n−1)α; send/recv: b/β + α.
 */
export const alphaBetaSeconds = (
  collective: Collective,
  ranks: number,
  bytes: number,
  link: Link,
): number => {
  if (bytes <= 0) return 0;
  if (collective === 'send-recv') return bytes / link.bandwidth + link.latency;
  if (ranks <= 1) return 0;
  const steps = collective === 'all-reduce' ? 2 * (ranks - 1) : ranks - 1;
  return ((steps / ranks) * bytes) / link.bandwidth + steps * link.latency;
};

/** Where the α-β defaults come from: the GPU catalog's links and the perf parameters' tiers. */
export const linkOf = (
  gpuType: GpuTypeId,
  tier: Tier,
  parameters: PerfParameters = DEFAULT_PERF_PARAMETERS,
): Link => {
  const gpu = getGpuType(gpuType);
  if (tier === 'intra') return { bandwidth: gpu.intraNodeGBps * 1e9, latency: gpu.intraNodeLatencyUs * 1e-6 };
  const t = parameters.tiers[tier];
  const gbps = parameters.hostNetworkGbps[gpu.id] ?? gpu.hostNetworkGbps;
  return { bandwidth: ((gbps * 1e9) / 8) * t.bandwidthFactor, latency: t.latencyUs * 1e-6 };
};

/** Byte sizes the default tables are sampled at: 1 KiB to 64 GiB, every factor of 4. */
const SAMPLE_BYTES: readonly number[] = Array.from({ length: 19 }, (_, i) => 1024 * 4 ** i);

/** Piecewise-linear interpolation over points sorted by bytes; linear extrapolation past either end. */
export const interpolate = (points: readonly CommPoint[], bytes: number): number => {
  if (bytes <= 0) return 0;
  const n = points.length;
  if (n === 1) return (points[0]!.seconds * bytes) / points[0]!.bytes;
  let lo = 0;
  let hi = n - 1;
  if (bytes <= points[0]!.bytes) hi = 1;
  else if (bytes >= points[n - 1]!.bytes) lo = n - 2;
  else {
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (points[mid]!.bytes <= bytes) lo = mid;
      else hi = mid;
    }
  }
  const a = points[lo]!;
  const b = points[hi]!;
  const slope = (b.seconds - a.seconds) / (b.bytes - a.bytes);
  return Math.max(0, a.seconds + slope * (bytes - a.bytes));
};

export class CommTables {
  private readonly tables = new Map<string, readonly CommPoint[]>();

  constructor(
    private readonly parameters: PerfParameters = DEFAULT_PERF_PARAMETERS,
    measurements: readonly CommMeasurement[] = [],
  ) {
    for (const [i, m] of measurements.entries()) {
      this.tables.set(key(m.collective, m.gpuType, m.tier, m.ranks), validate(m, i));
    }
  }

  /** Seconds for one `collective` of `bytes` over `ranks` GPUs of `gpuType` at `tier`. */
  seconds(collective: Collective, gpuType: GpuTypeId, tier: Tier, ranks: number, bytes: number): number {
    if (bytes <= 0 || (ranks <= 1 && collective !== 'send-recv')) return 0;
    const k = key(collective, gpuType, tier, collective === 'send-recv' ? 2 : ranks);
    let table = this.tables.get(k);
    if (!table) {
      const link = linkOf(gpuType, tier, this.parameters);
      table = SAMPLE_BYTES.map((b) => ({ bytes: b, seconds: alphaBetaSeconds(collective, ranks, b, link) }));
      this.tables.set(k, table);
    }
    return interpolate(table, bytes);
  }

  /** The points behind one table (after first use or measurement), for inspection and tests. */
  points(
    collective: Collective,
    gpuType: GpuTypeId,
    tier: Tier,
    ranks: number,
  ): readonly CommPoint[] | undefined {
    return this.tables.get(key(collective, gpuType, tier, ranks));
  }
}

const key = (collective: Collective, gpuType: GpuTypeId, tier: Tier, ranks: number): string =>
  `${collective}|${getGpuType(gpuType).id}|${tier}|${ranks}`;

const validate = (m: CommMeasurement, index: number): CommPoint[] => {
  const where = `comm measurement [${index}] (${m.collective}, ${m.gpuType}, ${m.tier}, ${m.ranks} ranks)`;
  if (!COLLECTIVES.includes(m.collective)) throw new RangeError(`${where}: unknown collective`);
  if (!TIERS.includes(m.tier)) throw new RangeError(`${where}: tier must be one of ${TIERS.join(', ')}`);
  if (!(Number.isInteger(m.ranks) && m.ranks >= 2))
    throw new RangeError(`${where}: ranks must be an integer ≥ 2`);
  getGpuType(m.gpuType);
  if (m.points.length < 2) throw new RangeError(`${where}: needs at least 2 points to interpolate`);
  const points = [...m.points].sort((a, b) => a.bytes - b.bytes);
  points.forEach((p, i) => {
    if (!(Number.isFinite(p.bytes) && p.bytes > 0 && Number.isFinite(p.seconds) && p.seconds >= 0))
      throw new RangeError(`${where}: points[${i}] needs bytes > 0 and seconds ≥ 0`);
    if (i > 0 && p.bytes === points[i - 1]!.bytes)
      throw new RangeError(`${where}: two points at ${p.bytes} bytes`);
  });
  return points;
};
