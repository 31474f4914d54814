/**
 * Whether a host's report of a checkpoint counts (pure). Checkpoints only grow in step, and a step an agent
 * reports is already complete in storage (agents report a step only after its upload finished), so a checkpoint
 * of an older generation of the same job still moves the job forward when it is newer than the recorded one: the
 * hosts a job just left upload their final checkpoint while the job's next generation is being placed.
 *
 * - `counts`: the host holds the job now, or held it in the generation it reports (the job's former holders);
 * - `ignored`: a generation older than anything the job remembers the hosts of, or one it has not reached;
 * - `refused`: the host claims the current generation of a job it does not hold.
 */
import type { JobItem } from '../items/job-item.ts';

export type ClaimStanding = 'counts' | 'ignored' | 'refused';

export const checkpointClaimStanding = (
  item: Pick<JobItem, 'jobGeneration' | 'allocation' | 'formerHolders'>,
  hostId: string,
  jobGeneration: number,
): ClaimStanding => {
  if (jobGeneration > item.jobGeneration) return 'ignored';
  const holdsNow = item.allocation?.slices.some((slice) => slice.hostId === hostId) ?? false;
  const former = item.formerHolders;
  const heldThen =
    former !== undefined && former.jobGeneration >= jobGeneration && former.hostIds.includes(hostId);
  if (holdsNow || heldThen) return 'counts';
  return jobGeneration === item.jobGeneration ? 'refused' : 'ignored';
};
