/**
 * One page of a job's logs: lines of each rank in the order written, lowest rank first, from where the cursor
 * left off. A page ends at `limit` lines or after reading `maxChunks` chunks (so one request stays within the API
 * function's time); `more` says whether lines were left for the next page. The returned cursor is always usable:
 * polling with it later returns only what was written since (`tessera logs --follow`). `drained` says every rank's
 * newest chunk is its run's final chunk, i.e. no worker of the job has output still to ship.
 */
import type { LogStream } from '../../protocol/log-chunk.ts';
import { decodeLogCursor, encodeLogCursor, type LogCursor, type RankPosition } from './log-cursor.ts';
import type { LogChunkStore } from './log-store.ts';

export interface LogPageRequest {
  jobId: string;
  /** Only this rank; all ranks when absent. */
  rank?: number;
  cursor?: string;
  limit: number;
  maxChunks?: number;
}

export interface LogPageLine {
  rank: number;
  /** Seconds since the epoch, when the agent read the line. */
  at: number;
  stream: LogStream;
  text: string;
}

export interface LogPage {
  lines: LogPageLine[];
  cursor: string;
  more: boolean;
  drained: boolean;
}

export const DEFAULT_MAX_CHUNKS_PER_PAGE = 40;

/** Throws InvalidLogCursorError for a cursor that is not one of this job's. */
export const readLogPage = async (store: LogChunkStore, request: LogPageRequest): Promise<LogPage> => {
  const cursor: LogCursor = request.cursor ? decodeLogCursor(request.jobId, request.cursor) : new Map();
  const ranks = request.rank !== undefined ? [request.rank] : await store.listRanks(request.jobId);
  const budget = { lines: request.limit, chunks: request.maxChunks ?? DEFAULT_MAX_CHUNKS_PER_PAGE };
  const lines: LogPageLine[] = [];
  let more = false;
  for (const rank of ranks) {
    if (budget.lines <= 0 || budget.chunks <= 0) {
      more = true;
      break;
    }
    more = await readRank(store, request.jobId, rank, cursor, budget, lines);
    if (more) break;
  }
  const drained = !more && ranks.every((rank) => cursor.get(rank)?.final ?? false);
  return { lines, cursor: encodeLogCursor(request.jobId, cursor), more, drained };
};

/** Appends one rank's unread lines within the budget; true when it stopped before reaching the rank's end. */
const readRank = async (
  store: LogChunkStore,
  jobId: string,
  rank: number,
  cursor: LogCursor,
  budget: { lines: number; chunks: number },
  out: LogPageLine[],
): Promise<boolean> => {
  const position = cursor.get(rank);
  // First the rest of a chunk the previous page stopped inside.
  if (position && !position.done) {
    budget.chunks--;
    const chunk = await store.getChunk(jobId, rank, position.chunk);
    if (chunk) {
      const taken = take(chunk.lines.slice(position.line), rank, budget, out);
      const line = position.line + taken;
      cursor.set(rank, { ...position, line, done: line >= chunk.lines.length });
      if (line < chunk.lines.length) return true;
    } else cursor.set(rank, { ...position, done: true });
  }
  for (;;) {
    if (budget.chunks <= 0 || budget.lines <= 0) return true;
    const after = cursor.get(rank)?.chunk ?? null;
    const names = await store.listChunks(jobId, rank, after, Math.min(budget.chunks, 100));
    if (names.length === 0) return false;
    for (const name of names) {
      if (budget.chunks <= 0 || budget.lines <= 0) return true;
      budget.chunks--;
      const chunk = await store.getChunk(jobId, rank, name);
      const chunkLines = chunk?.lines ?? []; // expired or unreadable: skipped
      const taken = take(chunkLines, rank, budget, out);
      const next: RankPosition = {
        chunk: name,
        line: taken,
        done: taken >= chunkLines.length,
        final: chunk?.final ?? false,
      };
      cursor.set(rank, next);
      if (!next.done) return true;
    }
  }
};

const take = (
  lines: readonly { at: number; stream: LogStream; text: string }[],
  rank: number,
  budget: { lines: number },
  out: LogPageLine[],
): number => {
  const count = Math.min(lines.length, budget.lines);
  for (const line of lines.slice(0, count))
    out.push({ rank, at: line.at, stream: line.stream, text: line.text });
  budget.lines -= count;
  return count;
};
