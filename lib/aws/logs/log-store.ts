/** What reading a job's logs needs from the log store (S3 in production and locally; in memory in unit tests). */
import type { LogChunk } from '../../protocol/log-chunk.ts';

export interface LogChunkStore {
  /** Ranks that have at least one chunk, ascending. */
  listRanks(jobId: string): Promise<number[]>;
  /** Chunk names of one rank after `after` (exclusive; null: from the first), oldest first, at most `max`. */
  listChunks(jobId: string, rank: number, after: string | null, max: number): Promise<string[]>;
  /** One chunk, or null when it is gone (expired by the lifecycle rule) or malformed. */
  getChunk(jobId: string, rank: number, name: string): Promise<LogChunk | null>;
}
