/**
 * `tessera logs`: how a line is printed and when `--follow` stops (pure). Following ends once the job is in a
 * terminal status and every rank's output is shipped to its final chunk, as seen by a poll made at least one
 * interval after the job turned terminal (an agent ships a worker's final chunk as the worker exits, at about the
 * time its telemetry reports the end). A host that died never ships a final chunk: then following ends
 * `drainSeconds` after the job turned terminal, with every line the host shipped before it died.
 */
import type { LogLineView, LogPageView } from '../client/types.ts';
import { isTerminal } from '../core/model/job.ts';

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
