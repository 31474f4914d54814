/** One job's use of a GPU when it runs alone, as seen by the interference model. */
export interface GpuUse {
  /** Share of wall time the GPU's math units are busy with this job (kernel time ÷ iteration time), in [0, 1]. */
  readonly utilisation: number;
  readonly memoryBytes: number;
}

/**
 * Normalised speeds of two jobs sharing GPUs (each one's throughput ÷ its throughput alone), from their
 * utilisations: time slices are shared in proportion to demand once the two together need more than the
 * whole GPU (u_a + u_b > 1 → each runs at 1/(u_a + u_b)), and each also loses `contention` × the partner's
 * utilisation to memory-bandwidth and cache interference. [0, 0] when both do not fit in memory.
 */
export const interferenceSpeeds = (
  a: GpuUse,
  b: GpuUse,
  capacityBytes: number,
  contention: number,
): readonly [number, number] => {
  if (a.memoryBytes + b.memoryBytes > capacityBytes) return [0, 0];
  const ua = clamp01(a.utilisation);
  const ub = clamp01(b.utilisation);
  const share = Math.min(1, 1 / Math.max(ua + ub, Number.MIN_VALUE));
  return [share * (1 - contention * ub), share * (1 - contention * ua)];
};

const clamp01 = (v: number): number => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
