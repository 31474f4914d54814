/**
 * The reconciler's state: plain JSON, so the agent can persist it next to the worker pids and a
 * restarted agent can pick up where the previous one stopped. Validated on load. Its instants
 * (`requestedAt`, `deadline`, `restartAt`, `startedAt`) are the agent clock's epoch milliseconds (clock.ts): timer
 * state of one host, never sent; everything the agent sends is in seconds (lib/protocol).
 */
import { z } from 'zod';
import { desiredJobSchema } from '../../lib/protocol/desired-state.ts';
import { fenceTermsSchema } from '../../lib/protocol/fence.ts';
import { jobPhaseSchema, stopReasonSchema } from '../../lib/protocol/telemetry.ts';

export const workerSlotSchema = z.object({
  /** Unique per incarnation: `<jobId>/g<generation>/a<attempt>/r<localRank>`. */
  ref: z.string(),
  rank: z.int(),
  localRank: z.int(),
  gpuIndices: z.array(z.int()),
  running: z.boolean(),
  exitCode: z.int().nullable(),
  exitSignal: z.string().nullable(),
  lastStep: z.int().nullable(),
});

export const jobRecordSchema = z.object({
  jobId: z.string(),
  jobGeneration: z.int(),
  /** The desired placement this record's workers were started from. */
  desired: desiredJobSchema,
  phase: jobPhaseSchema,
  /** Incarnation counter: one per start of workers, across generations of the job. */
  attempt: z.int().nonnegative(),
  /** Consecutive crashes within the current generation. */
  crashes: z.int().nonnegative(),
  resumeStep: z.int(),
  workers: z.array(workerSlotSchema),
  /** Newest complete checkpoint known for `desired.checkpointUri`. */
  checkpoint: z.object({ uri: z.string(), step: z.int() }).nullable(),
  reportedCheckpointStep: z.int().nullable(),
  stop: z
    .object({
      reason: stopReasonSchema,
      requestedAt: z.number(),
      deadline: z.number(),
      timedOut: z.boolean(),
    })
    .nullable(),
  /** What a kill leads to once every worker is gone. */
  afterKill: z.enum(['backoff', 'failed', 'stopped']).nullable(),
  restartAt: z.number().nullable(),
  lastCrash: z.object({ exitCode: z.int().nullable(), signal: z.string().nullable() }).nullable(),
  failure: z.object({ reason: z.string(), exitCode: z.int().nullable() }).nullable(),
  finishedStep: z.int().nullable(),
  lastError: z.string().nullable(),
  /**
   * This generation's gang broke here (a worker of a job spread over several hosts failed): its part stays
   * stopped until the control plane places the job again, with a new generation and rendezvous.
   */
  gangBroken: z.boolean().optional(),
});

export const reconcilerStateSchema = z.object({
  appliedGeneration: z.int().nullable(),
  evacuation: z
    .object({
      reason: z.enum(['spot', 'shutdown']),
      startedAt: z.number(),
      deadline: z.number(),
      jobIds: z.array(z.string()),
    })
    .nullable(),
  jobs: z.array(jobRecordSchema),
  /**
   * Fencing (fence.ts; seconds of the agent's clock): the control plane's terms, the newest proofs of contact, and
   * while fenced, when and at which applied generation. Kept across restarts so that an agent restarted during a
   * partition keeps counting from the contact its predecessor last had.
   */
  fence: z
    .object({
      terms: fenceTermsSchema.nullable(),
      contact: z.object({ telemetryAt: z.number(), desiredStateAt: z.number() }).nullable(),
      fenced: z.object({ at: z.number(), generation: z.int().nullable() }).nullable(),
    })
    .optional(),
});

export type WorkerSlot = z.infer<typeof workerSlotSchema>;
export type JobRecord = z.infer<typeof jobRecordSchema>;
export type ReconcilerState = z.infer<typeof reconcilerStateSchema>;

export function emptyReconcilerState(): ReconcilerState {
  return { appliedGeneration: null, evacuation: null, jobs: [] };
}
