import type { JobState } from '../model/job.ts';

/** Higher user priority first, then earlier arrival, then id: the deterministic tie-break every order ends with. */
export const byPriorityThenArrival = (a: JobState, b: JobState): number =>
  b.spec.priority - a.spec.priority ||
  a.spec.submitTime - b.spec.submitTime ||
  (a.spec.id < b.spec.id ? -1 : a.spec.id > b.spec.id ? 1 : 0);

export const isHolding = (job: JobState): boolean =>
  (job.status === 'running' || job.status === 'checkpointing') && job.allocation !== undefined;

/** Sort by a numeric key (ascending), falling back to priority/arrival/id. Computes each key once. */
export const sortByKey = (jobs: readonly JobState[], key: (job: JobState) => number): JobState[] => {
  const keyed: { job: JobState; k: number }[] = [];
  for (const job of jobs) keyed.push({ job, k: key(job) });
  return sortKeyed(keyed);
};

/**
 * `sortByKey` for keys already computed: the jobs by `k` (ascending), then priority/arrival/id. Sorts `keyed`.
 *
 * The order is built by `push`, not `map`: an optimised `map` returns a holey array where the interpreter's returns
 * a packed one, so the order every stage iterates changed its map once the order stage was optimised, and every
 * stage's optimised code was thrown away and compiled again (most of tessera's first run is compiling).
 */
export const sortKeyed = (keyed: { readonly job: JobState; readonly k: number }[]): JobState[] => {
  keyed.sort((a, b) => a.k - b.k || byPriorityThenArrival(a.job, b.job));
  const ordered: JobState[] = [];
  for (const entry of keyed) ordered.push(entry.job);
  return ordered;
};
