/**
 * Submitting a job, shared by the API and the SQS ingest: idempotent by client token. The job id is derived
 * from the tenant and the token, and the item is written only if that id is new, so a retried request (or a
 * redelivered SQS message, whose message id serves as the token) returns the job the first one created. A
 * token reused for a different spec is refused.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type JobSpecDocument, jobSpecFingerprint, toJobLaunch, toJobSpec } from '../protocol/job-spec.ts';
import type { JobItem } from './items/job-item.ts';
import type { JobsRepository } from './repositories/jobs-repository.ts';
import type { SchedulerEvents } from './sqs/scheduler-events.ts';

export interface SubmitDependencies {
  readonly jobs: JobsRepository;
  readonly schedulerEvents: SchedulerEvents;
  /** Epoch seconds. */
  readonly clock: () => number;
  readonly newId?: () => string;
  readonly log: { warn(message: string, details?: Record<string, unknown>): void };
}

export interface SubmitRequest {
  readonly document: JobSpecDocument;
  /** The caller's identity: every job belongs to the tenant that submitted it. */
  readonly tenant: string;
  /** Used when the document has no clientToken (the SQS message id), so redeliveries stay idempotent. */
  readonly fallbackToken?: string;
}

export type SubmitResult = { readonly created: boolean; readonly job: JobItem };

export class ClientTokenConflictError extends Error {
  override readonly name = 'ClientTokenConflictError';
}

export const jobIdFor = (tenant: string, clientToken: string): string =>
  `job-${createHash('sha256').update(`${tenant}\0${clientToken}`).digest('hex').slice(0, 24)}`;

/** The item of a job submitted at `now` (epoch seconds). */
export const newJobItem = (request: SubmitRequest, jobId: string, now: number): JobItem => {
  const token = request.document.clientToken ?? request.fallbackToken;
  const spec = toJobSpec(request.document, { id: jobId, tenant: request.tenant, submitTime: now });
  const { setup, ...launch } = toJobLaunch(request.document);
  return {
    jobId,
    tenant: request.tenant,
    status: 'queued',
    submittedAt: now,
    updatedAt: now,
    ...(token ? { clientToken: token } : {}),
    fingerprint: jobSpecFingerprint(request.document),
    // Copies: the stored item's arrays are mutable, the core's readonly.
    spec: { ...spec, gpuTypes: spec.gpuTypes ? [...spec.gpuTypes] : undefined },
    launch: {
      ...launch,
      command: [...launch.command],
      ...(setup ? { setup: [...setup] } : {}),
    },
    progress: 0,
    attainedService: 0,
    runningSeconds: 0,
    waitingSince: now,
    jobGeneration: 0,
    checkpointStep: -1,
    resumeStep: -1,
    restarts: 0,
    migrations: 0,
    timeline: [{ at: now, kind: 'submitted' }],
  };
};

export const submitJob = async (deps: SubmitDependencies, request: SubmitRequest): Promise<SubmitResult> => {
  const token = request.document.clientToken ?? request.fallbackToken;
  const jobId = token ? jobIdFor(request.tenant, token) : `job-${(deps.newId ?? randomUUID)()}`;
  const now = deps.clock();
  const result = await deps.jobs.create(newJobItem(request, jobId, now));
  if (!result.created) {
    if (result.existing.fingerprint !== jobSpecFingerprint(request.document)) {
      throw new ClientTokenConflictError(
        `clientToken: "${token}" was already used for job ${jobId} with a different spec`,
      );
    }
    return { created: false, job: result.existing };
  }
  try {
    await deps.schedulerEvents.publish({ kind: 'arrival', subject: jobId, at: now });
  } catch (error) {
    // The job is stored; the scheduled round will pick it up even without this nudge.
    deps.log.warn('could not request an early round for a new job', { jobId, error: String(error) });
  }
  return { created: true, job: result.item };
};
