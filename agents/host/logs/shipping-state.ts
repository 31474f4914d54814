/**
 * The log shipper's state on disk: for each worker run still being shipped, where its output files are and the
 * byte offset up to which each stream is in S3, and where the chunk being uploaded ends. Offsets only advance after
 * an upload succeeded, so a restarted agent re-reads exactly the lines not yet shipped (like the telemetry outbox).
 * Written atomically.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

export const shippedRunSchema = z.object({
  ref: z.string(),
  jobId: z.string(),
  rank: z.int().nonnegative(),
  jobGeneration: z.int().nonnegative(),
  /** Seconds; names the run's chunks. */
  runStart: z.number(),
  stdoutPath: z.string(),
  stderrPath: z.string(),
  offsets: z.object({ stdout: z.int().nonnegative(), stderr: z.int().nonnegative() }),
  nextSeq: z.int().nonnegative(),
  /**
   * Where chunk `nextSeq` ends in each stream, recorded before its upload: an agent that died during the upload
   * cannot know whether it landed, so its successor uploads exactly these lines again under the same name.
   */
  uploading: z
    .object({ stdout: z.int().nonnegative(), stderr: z.int().nonnegative() })
    .nullable()
    .default(null),
  /** The worker is gone: read partial last lines too and end with a final chunk. */
  exited: z.boolean(),
  /** The job was released: delete the output files once the final chunk is shipped. */
  deleteWhenShipped: z.boolean(),
});
export type ShippedRun = z.infer<typeof shippedRunSchema>;

const stateSchema = z.object({ version: z.literal(1), runs: z.array(shippedRunSchema) });

export const readShippingState = (path: string): ShippedRun[] => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const parsed = stateSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`log shipping state ${path} is malformed`);
  return parsed.data.runs;
};

export const writeShippingState = (path: string, runs: readonly ShippedRun[]): void => {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify({ version: 1, runs }));
  renameSync(temporary, path);
};
