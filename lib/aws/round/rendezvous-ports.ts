/**
 * Rendezvous ports (pure): rank 0 of each job listens on its job's port (torch's TCPStore binds every
 * interface). Ports are unique across the cluster, not only per host, so hosts that share a machine (two agents
 * in tests, the local cloud's simulated instances) never collide either. Each placement prefers its own port,
 * derived from the job id and generation: a new generation does not reuse the previous one's port, so workers
 * of a stopping generation can never join the rendezvous of the next.
 */
import type { JobItem } from '../items/job-item.ts';

export const MASTER_PORT_BASE = 29500;
/** 29500–32767: below Linux's ephemeral range (32768+), from which gloo and NCCL draw their data connections. */
export const MASTER_PORT_RANGE = 3268;

/** FNV-1a: a stable spread of job ids over the range. */
const hash = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

/** Where the search for a free port starts for this placement of the job. */
export const preferredMasterPort = (jobId: string, jobGeneration: number): number =>
  MASTER_PORT_BASE + ((hash(jobId) + jobGeneration) % MASTER_PORT_RANGE);

/**
 * Ports for the holding jobs that lack one: the preferred port, else the next free one (wrapping round the
 * range). Jobs keeping their placement keep their port. Throws when the range is exhausted.
 */
export const assignMasterPorts = (jobs: readonly JobItem[]): Map<string, number> => {
  const used = new Set(jobs.flatMap((job) => (job.masterPort !== undefined ? [job.masterPort] : [])));
  const assigned = new Map<string, number>();
  for (const job of [...jobs].sort((a, b) => (a.jobId < b.jobId ? -1 : 1))) {
    if (!job.allocation?.slices[0] || job.masterPort !== undefined) continue;
    const start = preferredMasterPort(job.jobId, job.jobGeneration) - MASTER_PORT_BASE;
    let port: number | undefined;
    for (let i = 0; i < MASTER_PORT_RANGE && port === undefined; i++) {
      const candidate = MASTER_PORT_BASE + ((start + i) % MASTER_PORT_RANGE);
      if (!used.has(candidate)) port = candidate;
    }
    if (port === undefined) throw new Error(`no free rendezvous port for job ${job.jobId}`);
    used.add(port);
    assigned.set(job.jobId, port);
  }
  return assigned;
};
