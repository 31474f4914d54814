/**
 * α-β cost of collectives. A ring all-reduce of `bytes` over n ranks moves 2(n−1)/n · bytes through each
 * rank's link in 2(n−1) latency-bound steps: t = 2(n−1)/n · bytes/β + 2(n−1)·α.
 */

export interface Link {
  /** Bytes per second. */
  readonly bandwidth: number;
  /** Seconds per step. */
  readonly latency: number;
}

/** One ring all-reduce of `bytes` over `ranks` ranks on `link`, paying the latency `calls` times (one per bucket). */
export const ringAllReduceSeconds = (bytes: number, ranks: number, link: Link, calls = 1): number => {
  if (ranks <= 1 || bytes <= 0) return 0;
  const steps = 2 * (ranks - 1);
  return ((steps / ranks) * bytes) / link.bandwidth + steps * calls * link.latency;
};

export interface HierarchicalAllReduce {
  readonly bytes: number;
  /** Ranks of the collective on each host. */
  readonly ranksPerHost: number;
  readonly hosts: number;
  /** GPU↔GPU link inside a host. */
  readonly intra: Link;
  /** The host's NIC at the tier joining the hosts; shared by the host's rings. */
  readonly inter: Link;
  /** Number of all-reduce calls (gradient buckets); the latency terms are paid per call. */
  readonly calls: number;
}

/**
 * Hierarchical all-reduce (NCCL-style): reduce-scatter + all-gather inside each host (together the cost of
 * an intra-host ring all-reduce), then an all-reduce across hosts. The ranksPerHost inter-host rings each
 * carry bytes/ranksPerHost and share the NIC, so the NIC moves 2(h−1)/h · bytes as one flat ring would.
 */
export const hierarchicalAllReduceSeconds = (c: HierarchicalAllReduce): number =>
  ringAllReduceSeconds(c.bytes, c.ranksPerHost, c.intra, c.calls) +
  ringAllReduceSeconds(c.bytes, c.hosts, c.inter, c.calls);

/** Point-to-point transfer of `bytes`. */
export const transferSeconds = (bytes: number, link: Link): number =>
  bytes > 0 ? bytes / link.bandwidth + link.latency : 0;
