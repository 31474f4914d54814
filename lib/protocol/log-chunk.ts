/**
 * Worker logs as the agent ships them and the API reads them: one S3 object per chunk under
 * `jobs/<jobId>/logs/<rank>/<chunk>`, a JSON document holding the lines of one worker run (stdout and stderr
 * together, each line tagged with its stream and the time in seconds the agent read it). Chunk names sort in the
 * order they were written: the run's start time (seconds, fixed width) then the run's chunk number, so the
 * chunks of one rank list oldest first however many times the rank was restarted or moved to another host.
 */
import { z } from 'zod';

export const LOG_CHUNK_VERSION = 1;
/** Every chunk object carries this tag: the bucket's lifecycle rule expires logs by it (filters know no wildcard). */
export const LOG_OBJECT_TAG = { key: 'tessera-data', value: 'logs' } as const;
export const LOG_STREAMS = ['stdout', 'stderr'] as const;
export type LogStream = (typeof LOG_STREAMS)[number];

export const logLineSchema = z.object({
  /** When the agent read the line, in seconds since the epoch. */
  at: z.number(),
  stream: z.enum(LOG_STREAMS),
  text: z.string(),
});
export type LogLine = z.infer<typeof logLineSchema>;

export const logChunkSchema = z.object({
  version: z.literal(LOG_CHUNK_VERSION),
  jobId: z.string().min(1),
  rank: z.int().nonnegative(),
  jobGeneration: z.int().nonnegative(),
  hostId: z.string(),
  /** The run's chunk number, from 0. */
  seq: z.int().nonnegative(),
  /** The last chunk of the run: the worker exited and everything it wrote is shipped. */
  final: z.boolean(),
  lines: z.array(logLineSchema),
});
export type LogChunk = z.infer<typeof logChunkSchema>;

const CHUNK_NAME = /^\d{10}\.\d{3}-\d{6}$/;

/** `<runStart seconds, 10.3 digits>-<seq, 6 digits>`: names of one rank sort in writing order. */
export const logChunkName = (runStartSeconds: number, seq: number): string =>
  `${runStartSeconds.toFixed(3).padStart(14, '0')}-${String(seq).padStart(6, '0')}`;

export const isLogChunkName = (name: string): boolean => CHUNK_NAME.test(name);

/** Every log object of a job lies under this prefix (the S3 lifecycle rule and IAM grants use `jobs/*\/logs/`). */
export const jobLogsPrefix = (jobId: string): string => `jobs/${jobId}/logs/`;

export const rankLogsPrefix = (jobId: string, rank: number): string => `${jobLogsPrefix(jobId)}${rank}/`;

export const logChunkKey = (jobId: string, rank: number, name: string): string =>
  `${rankLogsPrefix(jobId, rank)}${name}`;

/** The rank and chunk name of a key under the job's log prefix, or null for anything else. */
export const parseLogChunkKey = (jobId: string, key: string): { rank: number; name: string } | null => {
  const prefix = jobLogsPrefix(jobId);
  if (!key.startsWith(prefix)) return null;
  const match = /^(\d+)\/(.+)$/.exec(key.slice(prefix.length));
  if (!match || !isLogChunkName(match[2]!)) return null;
  return { rank: Number(match[1]), name: match[2]! };
};
