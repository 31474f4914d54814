/**
 * `tessera logs`: how a line is printed and when `--follow` stops (pure). Following ends once the job is in a
 * terminal status and every rank's output is shipped to its final chunk, as seen by a poll made at least one
 * interval after the job turned terminal (an agent ships a worker's final chunk as the worker exits, at about the
 * time its telemetry reports the end). A host that died never ships a final chunk: then following ends
 * `drainSeconds` after the job turned terminal, with every line the host shipped before it died.
 */
import type { LogLineView, LogPageView } from '../client/types.ts';
import { isTerminal, type JobStatus } from '../core/model/job.ts';

export interface FollowState {
  /** When (seconds) a page first showed the job terminal; null while it runs. */
  terminalSince: number | null;
}

export const FOLLOW_START: FollowState = { terminalSince: null };

export const nextFollowState = (
  state: FollowState,
  page: Pick<LogPageView, 'status' | 'more' | 'drained'>,
  now: number,
  options: { intervalSeconds: number; drainSeconds: number },
): { state: FollowState; stop: boolean } => {
  if (!isTerminal(page.status)) return { state: FOLLOW_START, stop: false };
  const since = state.terminalSince ?? now;
  const waited = now - since;
  const stop =
    !page.more && ((page.drained && waited >= options.intervalSeconds) || waited >= options.drainSeconds);
  return { state: { terminalSince: since }, stop };
};

/** `[rank N] text` when several ranks are shown, the bare text for one rank; stderr lines go to stderr. */
export const formatLogLine = (line: LogLineView, showRank: boolean): { text: string; stderr: boolean } => ({
  text: showRank ? `[rank ${line.rank}] ${line.text}` : line.text,
  stderr: line.stream === 'stderr',
});

/**
 * What `tessera logs` says on stderr when it printed nothing, so an empty answer is not mistaken for a hang or a
 * wrong rank: a queued job has no workers yet, nor has a job that ended before it ever started (cancelled while
 * queued, failed as unschedulable); a rank that never wrote (or does not exist) has no lines.
 */
export const noOutputNote = (
  jobId: string,
  status: JobStatus,
  rank: number | undefined,
  neverStarted = false,
): string => {
  const whose = rank === undefined ? `job ${jobId}` : `rank ${rank} of job ${jobId}`;
  const nothing =
    rank === undefined ? 'its workers printed nothing' : `no rank ${rank}, or it printed nothing`;
  const why =
    status === 'queued'
      ? 'it is queued, no worker has started yet'
      : isTerminal(status)
        ? neverStarted
          ? `it is ${status} and never started, no worker ran`
          : `it is ${status}; ${nothing}`
        : `it is ${status}; ${nothing} yet (--follow waits for output)`;
  return `no output from ${whose}: ${why}`;
};
