import type { TraceKind } from './types.ts';

/**
 * GPUs per host of each trace source's own hardware, by its own conventions: a recorded run time was measured on
 * hosts of this size, so a job larger than one host ran across several of them (lib/sim/reference-placement.ts).
 * Sources without one (a user's own jobs file, generic generators) are left out and get the simulator's default.
 */
export const SOURCE_HOST_GPUS: Readonly<Partial<Record<TraceKind, number>>> = {
  // Philly (Jeon et al., ATC'19): servers of 2, 4 or 8 GPUs; a job larger than 8 always spans servers.
  philly: 8,
  // Tiresias's simulator clusters (`n32g4.csv`, `cluster_spec.csv`: num_gpu_p_node = 4) and its testbed.
  tiresias: 4,
  // Gavel's throughput table (`simulation_throughputs.json`) measures scale factors 1–8 consolidated on one server;
  // `total_steps` is that table's rate, so the reference is a server of 8. Shockwave reuses Gavel's table.
  gavel: 8,
  shockwave: 8,
  // Gavel's older layouts: the same table (steps) or single-GPU jobs (poisson).
  'gavel-msr': 8,
  'gavel-steps': 8,
  'gavel-poisson': 8,
  // Pollux's artifact cluster: 16 nodes × 4 GPUs (`simulator/` and the paper's g4dn.12xlarge testbed).
  pollux: 4,
  // Helios (Hu et al., SC'21): 8-GPU nodes in every cluster.
  helios: 8,
  // Alibaba PAI (Weng et al., NSDI'22): mostly 8-GPU machines.
  'alibaba-pai': 8,
};

/** The source's GPUs per host, when it states one. */
export const sourceHostGpus = (format: TraceKind): number | undefined => SOURCE_HOST_GPUS[format];
