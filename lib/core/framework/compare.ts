import type { JobState } from '../model/job.ts';

/** Higher user priority first, then earlier arrival, then id: the deterministic tie-break every order ends with. */
export const byPriorityThenArrival = (a: JobState, b: JobState): number =>
  b.spec.priority - a.spec.priority ||
  a.spec.submitTime - b.spec.submitTime ||
  (a.spec.id < b.spec.id ? -1 : a.spec.id > b.spec.id ? 1 : 0);

export const isHolding = (job: JobState): boolean =>
  (job.status === 'running' || job.status === 'checkpointing') && job.allocation !== undefined;

/** Sort by a numeric key (ascending), falling back to priority/arrival/id. Computes each key once. */
export const sortByKey = (jobs: readonly JobState[], key: (job: JobState) => number): JobState[] =>
  sortKeyed(jobs.map((job) => ({ job, k: key(job) })));

/** `sortByKey` for keys already computed: the jobs by `k` (ascending), then priority/arrival/id. Sorts `keyed`. */
export const sortKeyed = (keyed: { readonly job: JobState; readonly k: number }[]): JobState[] =>
  keyed.sort((a, b) => a.k - b.k || byPriorityThenArrival(a.job, b.job)).map((e) => e.job);
