/**
 * Messages the agent sends to the telemetry queue. Exported as zod schemas so the telemetry Lambda
 * can validate what it receives with the same definitions. Times are seconds: `at` is epoch seconds from the
 * agent's clock. `hostId` is the host the message speaks for; the control plane accepts it only from that
 * host's own credentials (see docs/host-agent.md, sender-bound telemetry).
 */
import { z } from 'zod';

/** Every message: the host it speaks for, and when it was sent (epoch seconds, the agent's clock). */
const base = { hostId: z.string(), at: z.number() };
const jobRef = { jobId: z.string(), jobGeneration: z.int() };
const step = z.int().nonnegative();

export const jobPhaseSchema = z.enum([
  'running',
  'stopping',
  'killing',
  'backoff',
  'stopped',
  'finished',
  'failed',
]);
/**
 * `gang`: a worker of a job spread over several hosts failed, so this host stopped its part of the gang too.
 * `fenced`: the agent lost contact with the control plane for longer than its fence (fence.ts) and stopped it.
 */
export const stopReasonSchema = z.enum([
  'rescale',
  'unassigned',
  'drain',
  'spot',
  'shutdown',
  'external',
  'gang',
  'fenced',
]);

export const gpuInfoSchema = z.object({
  index: z.int().nonnegative(),
  uuid: z.string(),
  name: z.string(),
  memoryTotalMiB: z.number().nullable(),
});
export const topologySchema = z.object({ rack: z.string(), network: z.string(), nodes: z.array(z.string()) });
export const jobCheckpointSummarySchema = z.object({
  ...jobRef,
  /** Newest complete checkpoint the agent knows of, or null if none is known. */
  step: step.nullable(),
  timedOut: z.boolean(),
});

export const registerMessageSchema = z.object({
  type: z.literal('register'),
  ...base,
  instanceId: z.string().nullable(),
  instanceType: z.string().nullable(),
  availabilityZone: z.string().nullable(),
  gpus: z.array(gpuInfoSchema),
  topology: topologySchema.nullable(),
  agentVersion: z.string(),
  /** Private address other hosts reach this one at (the rendezvous of jobs whose rank 0 runs here). */
  address: z.string().min(1).optional(),
});

export const heartbeatMessageSchema = z.object({
  type: z.literal('heartbeat'),
  ...base,
  appliedGeneration: z.int().nullable(),
  draining: z.boolean(),
  evacuating: z.enum(['spot', 'shutdown']).nullable(),
  gpus: z.array(
    z.object({ index: z.int(), utilization: z.number().nullable(), memoryUsedMiB: z.number().nullable() }),
  ),
  jobs: z.array(
    z.object({
      ...jobRef,
      phase: jobPhaseSchema,
      step: step.nullable(),
      checkpointStep: step.nullable(),
      crashes: z.int().nonnegative(),
      workers: z.array(
        z.object({
          rank: z.int(),
          localRank: z.int(),
          gpuIndices: z.array(z.int()),
          pid: z.int().nullable(),
          step: step.nullable(),
          running: z.boolean(),
        }),
      ),
    }),
  ),
});

export const desiredStateRejectedMessageSchema = z.object({
  type: z.literal('desiredStateRejected'),
  ...base,
  generation: z.int().nullable(),
  issues: z.array(z.string()),
});

export const startedMessageSchema = z.object({
  type: z.literal('started'),
  ...base,
  ...jobRef,
  attempt: z.int().positive(),
  resumeStep: z.int().min(-1),
  workers: z.array(z.object({ rank: z.int(), localRank: z.int(), gpuIndices: z.array(z.int()) })),
});

export const progressMessageSchema = z.object({
  type: z.literal('progress'),
  ...base,
  ...jobRef,
  step,
  /** Seconds per iteration, mean over this host's workers. */
  stepTime: z.number().nonnegative(),
  /** Samples per second of this host's workers together (each worker reports its own). */
  samplesPerSecond: z.number().nonnegative(),
  /** Mean utilisation (percent) of the job's GPUs on this host at the last sample, null if unknown. */
  gpuUtilization: z.number().nullable(),
});

export const checkpointedMessageSchema = z.object({
  type: z.literal('checkpointed'),
  ...base,
  ...jobRef,
  step,
  /** Where the checkpoint is (the step directory reported by rank 0, or the job's checkpoint URI). */
  uri: z.string(),
});

export const stoppedMessageSchema = z.object({
  type: z.literal('stopped'),
  ...base,
  ...jobRef,
  reason: stopReasonSchema,
  checkpointStep: step.nullable(),
  /** True when the workers missed the checkpoint deadline and were killed. */
  timedOut: z.boolean(),
});

export const restartingMessageSchema = z.object({
  type: z.literal('restarting'),
  ...base,
  ...jobRef,
  crashes: z.int().positive(),
  exitCode: z.int().nullable(),
  signal: z.string().nullable(),
  /** Seconds until the next attempt. */
  backoffSeconds: z.number().nonnegative(),
});

export const finishedMessageSchema = z.object({ type: z.literal('finished'), ...base, ...jobRef, step });

export const failedMessageSchema = z.object({
  type: z.literal('failed'),
  ...base,
  ...jobRef,
  reason: z.string(),
  exitCode: z.int().nullable(),
  crashes: z.int().nonnegative(),
});

export const spotInterruptionMessageSchema = z.object({
  type: z.literal('spotInterruption'),
  ...base,
  action: z.string(),
  /** When EC2 will act (epoch seconds), from the notice; null if the notice had no parsable time. */
  noticeTime: z.number().nullable(),
  checkpoints: z.array(jobCheckpointSummarySchema),
});

export const hostDrainedMessageSchema = z.object({
  type: z.literal('hostDrained'),
  ...base,
  reason: z.literal('shutdown'),
  checkpoints: z.array(jobCheckpointSummarySchema),
});

export const telemetryMessageSchema = z.discriminatedUnion('type', [
  registerMessageSchema,
  heartbeatMessageSchema,
  desiredStateRejectedMessageSchema,
  startedMessageSchema,
  progressMessageSchema,
  checkpointedMessageSchema,
  stoppedMessageSchema,
  restartingMessageSchema,
  finishedMessageSchema,
  failedMessageSchema,
  spotInterruptionMessageSchema,
  hostDrainedMessageSchema,
]);

export type TelemetryMessage = z.infer<typeof telemetryMessageSchema>;
export type JobPhase = z.infer<typeof jobPhaseSchema>;
export type StopReason = z.infer<typeof stopReasonSchema>;
export type GpuInfo = z.infer<typeof gpuInfoSchema>;
export type HostTopology = z.infer<typeof topologySchema>;
export type JobCheckpointSummary = z.infer<typeof jobCheckpointSummarySchema>;
export type HeartbeatMessage = z.infer<typeof heartbeatMessageSchema>;
export type TelemetryOf<T extends TelemetryMessage['type']> = Extract<TelemetryMessage, { type: T }>;
