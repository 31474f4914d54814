import { isHolding } from '../../framework/compare.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import { efficiencyKey } from '../crius/calibration.ts';
import type { CellConfig } from '../crius/job-cells.ts';
import { estimatedRemainingIterations } from './order.ts';

/**
 * A job is scaled up (a larger count or a faster type, when nobody waits) when the move saves more time on its
 * remaining iterations than the restart it costs — the rule `grow-where-it-pays.ts` applies to placements. A job
 * admitted this round has not started, so a larger Cell costs it no restart.
 *
 * Crius asks a fixed relative gain (10 %) of every scale-up, whatever the job has left. That stops a job with an hour
 * left from moving for a 5 % gain (3 minutes saved for a 30 s restart: it pays), and a job with a week left for 9 %
 * (14 hours). On held-out Philly days on aws-mixed the longest job, moved by admission moves from 8 A100s to 4 L4s,
 * which Crius's estimate rates 8 % slower, ran there for the rest of its 214 k s although the A100s were idle again
 * with nobody waiting: the schedule ended 12 % after Dally's.
 *
 * On its own type, both Cells are compared under the same calibration. Crius rates the Cell a job holds with the
 * job's own measured ratio and every other Cell with its model's learned efficiency on the type; a job that runs
 * below its model's average then always sees its other counts as faster and, without a gain margin, flips between
 * two of them (an lstm-lm between 1 and 2 A100s, 19 restarts). The job's own deviation from its model carries to the
 * other counts of its type; on another type the model's efficiency there stays the estimate (part of the deviation
 * may be the type's).
 */
export const scaleUpPays = (
  ordered: readonly JobState[],
  ctx: RoundContext,
): ((jobId: string, from: CellConfig, to: CellConfig) => boolean) => {
  // Built on the first scale-up asked about (most rounds have waiting jobs and scale nobody up).
  let byId: Map<string, JobState> | undefined;
  const calibration = ctx.state.cellCalibration;
  return (jobId, from, to) => {
    if (!byId) byId = new Map(ordered.map((job) => [job.spec.id, job]));
    const job = byId.get(jobId);
    if (!job || !(from.rate > 0)) return false;
    const own = calibration?.cells[jobId];
    const efficiency = (type: string) => calibration?.efficiency[efficiencyKey(job.spec.model, type)] ?? 1;
    // The job's measured ratio over its model's efficiency on the type it holds: its own deviation.
    const deviation =
      own && own.cell === from.key && to.gpuType === from.gpuType ? own.ratio / efficiency(from.gpuType) : 1;
    const toRate = to.rate * deviation;
    if (!(toRate > from.rate)) return false;
    const restart = isHolding(job) ? ctx.config.restartSeconds : 0;
    const left = estimatedRemainingIterations(job);
    return left / from.rate - left / toRate > restart;
  };
};
