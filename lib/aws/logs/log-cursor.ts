/**
 * The opaque cursor of `GET /jobs/{id}/logs`: for each rank, the last chunk read, how many of its lines were
 * returned, whether that was all of them and whether it was the run's final chunk. One position per rank, so a
 * follower polling with the cursor sees every new line of every rank, whichever rank wrote last. Tied to its job:
 * another job's cursor is refused.
 */
import { z } from 'zod';
import { isLogChunkName } from '../../protocol/log-chunk.ts';

export interface RankPosition {
  chunk: string;
  /** Lines of `chunk` already returned. */
  line: number;
  /** All lines of `chunk` were returned. */
  done: boolean;
  /** `chunk` is its run's final chunk. */
  final: boolean;
}

export type LogCursor = Map<number, RankPosition>;

export class InvalidLogCursorError extends Error {
  override readonly name = 'InvalidLogCursorError';
}

const positionSchema = z.tuple([
  z.string().refine(isLogChunkName),
  z.int().nonnegative(),
  z.boolean(),
  z.boolean(),
]);
const cursorSchema = z.object({
  v: z.literal(1),
  job: z.string(),
  ranks: z.record(z.string().regex(/^\d{1,6}$/), positionSchema),
});

export const encodeLogCursor = (jobId: string, cursor: LogCursor): string => {
  const ranks: Record<string, z.infer<typeof positionSchema>> = {};
  for (const [rank, p] of [...cursor].sort(([a], [b]) => a - b))
    ranks[rank] = [p.chunk, p.line, p.done, p.final];
  return Buffer.from(JSON.stringify({ v: 1, job: jobId, ranks }), 'utf8').toString('base64url');
};

export const decodeLogCursor = (jobId: string, text: string): LogCursor => {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidLogCursorError('not a cursor');
  }
  const parsed = cursorSchema.safeParse(value);
  if (!parsed.success) throw new InvalidLogCursorError('not a cursor');
  if (parsed.data.job !== jobId) throw new InvalidLogCursorError('a cursor of another job');
  return new Map(
    Object.entries(parsed.data.ranks).map(([rank, [chunk, line, done, final]]) => [
      Number(rank),
      { chunk, line, done, final },
    ]),
  );
};
