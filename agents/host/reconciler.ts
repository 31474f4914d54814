/**
 * The agent's functional core: a level-triggered state machine that compares the desired state with
 * the workers it runs and says what to do about the difference. No I/O and no clock reads: every
 * method takes `now`, and every action is returned as an effect for the shell (agent.ts) to carry out.
 *
 * Per job on this host (docs/host-agent.md draws it):
 *   running ──(generation changed / unassigned / drain / spot)──▶ stopping ──(all exited)──▶ stopped
 *   stopping ──(deadline passed)──▶ killing ──▶ stopped          stopped ──(desired)──▶ running
 *   running ──(crash)──▶ killing ──▶ backoff ──(delay over)──▶ running   (after N crashes: failed)
 *   running ──(exit 2)──▶ killing ──▶ failed                    running ──(all exit 0)──▶ finished
 * A new generation is started only from `stopped`, i.e. once every worker of the previous one has
 * exited: two generations of a job never run at once on this host.
 */

import type { DesiredJob, DesiredState, DesiredWorker } from '../../lib/protocol/desired-state.ts';
import type {
  JobCheckpointSummary,
  JobPhase,
  StopReason,
  TelemetryMessage,
} from '../../lib/protocol/telemetry.ts';
import { classifyExit, type WorkerReport } from '../../lib/protocol/worker-protocol.ts';
import type { CheckpointCatalog } from './checkpoint-catalog.ts';
import { crashBackoffMs } from './crash-backoff.ts';
import { type ContactKind, liftsFence, mustFence, withContact } from './fence.ts';
import { ProgressWindow } from './progress-window.ts';
import {
  emptyReconcilerState,
  type JobRecord,
  type ReconcilerState,
  reconcilerStateSchema,
  type WorkerSlot,
} from './reconciler-state.ts';
import { resumeStepOfPart } from './resume-step.ts';

export interface ReconcilerConfig {
  hostId: string;
  /** How long workers get to checkpoint and exit after SIGUSR2 before they are killed. */
  checkpointTimeoutMs: number;
  /** The job is reported failed at this many consecutive crashes of one generation. */
  maxCrashes: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Minimum time between two progress messages of one job. */
  progressIntervalMs: number;
}

export type Effect =
  | { kind: 'spawn'; ref: string; job: DesiredJob; worker: DesiredWorker; resumeStep: number }
  | { kind: 'signal'; ref: string; signal: 'SIGUSR2' | 'SIGKILL' }
  | { kind: 'telemetry'; message: TelemetryMessage }
  /** The job's record is gone: the shell may delete its logs. */
  | { kind: 'release'; jobId: string };

export interface WorkerExit {
  code: number | null;
  signal: string | null;
  /** Set when the process could not be started at all (e.g. the command does not exist). */
  spawnError?: string;
}

export interface JobSummary {
  jobId: string;
  jobGeneration: number;
  phase: JobPhase;
  step: number | null;
  checkpointStep: number | null;
  crashes: number;
  workers: {
    ref: string;
    rank: number;
    localRank: number;
    gpuIndices: number[];
    step: number | null;
    running: boolean;
  }[];
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type MessageBody = DistributiveOmit<TelemetryMessage, 'hostId' | 'at'>;

const ACTIVE_PHASES: ReadonlySet<JobPhase> = new Set(['running', 'stopping', 'killing']);
const SETTLED_PHASES: ReadonlySet<JobPhase> = new Set(['stopped', 'finished', 'failed']);

export class Reconciler {
  private readonly state: ReconcilerState;
  private desired: DesiredState | null = null;
  private readonly progress = new Map<string, ProgressWindow>();
  private readonly gpuUtilization = new Map<number, number | null>();

  constructor(
    private readonly config: ReconcilerConfig,
    private readonly checkpoints: CheckpointCatalog,
    restored?: ReconcilerState,
  ) {
    this.state = restored ? reconcilerStateSchema.parse(structuredClone(restored)) : emptyReconcilerState();
  }

  get appliedGeneration(): number | null {
    return this.state.appliedGeneration;
  }

  get evacuation(): ReconcilerState['evacuation'] {
    return this.state.evacuation;
  }

  get draining(): boolean {
    return this.desired?.drain ?? false;
  }

  /** Accepts a validated desired state; the next `reconcile` acts on it. A newer generation lifts a fence. */
  applyDesired(desired: DesiredState): void {
    this.desired = desired;
    this.state.appliedGeneration = desired.generation;
    const fence = this.fenceState();
    if (desired.fence) fence.terms = desired.fence;
    if (fence.fenced && liftsFence(fence.fenced.generation, desired.generation)) fence.fenced = null;
  }

  /** Whether the agent has fenced itself (fence.ts) and not yet been given a newer desired state. */
  get fenced(): boolean {
    return (this.state.fence?.fenced ?? null) !== null;
  }

  /** The agent (re)starts at `now`: contact not yet proven counts from here, unless its predecessor had some. */
  startContactClock(now: number): void {
    const fence = this.fenceState();
    fence.contact ??= { telemetryAt: now / 1000, desiredStateAt: now / 1000 };
  }

  /** A proof of contact with the control plane whose request began at `at` (fence.ts). */
  noteContact(kind: ContactKind, at: number): void {
    const fence = this.fenceState();
    fence.contact = withContact(
      fence.contact ?? { telemetryAt: at / 1000, desiredStateAt: at / 1000 },
      kind,
      at / 1000,
    );
  }

  /**
   * Out of contact for longer than the control plane's fence: stop every worker (checkpoint and exit within the
   * grace, else killed) and start nothing until a newer desired state comes.
   */
  checkFence(now: number): Effect[] {
    const fence = this.state.fence;
    if (!fence || fence.fenced || !fence.contact || !mustFence(fence.terms, fence.contact, now / 1000))
      return [];
    fence.fenced = { at: now / 1000, generation: this.state.appliedGeneration };
    const deadline = now + (fence.terms?.graceSeconds ?? 0) * 1000;
    for (const job of this.state.jobs) {
      if (job.phase === 'stopping' && job.stop) job.stop.deadline = Math.min(job.stop.deadline, deadline);
    }
    return this.reconcile(now);
  }

  observeGpuUtilization(samples: readonly { index: number; utilization: number | null }[]): void {
    for (const sample of samples) this.gpuUtilization.set(sample.index, sample.utilization);
  }

  /**
   * Checkpoint and stop everything before `deadline` and start nothing any more: the host is going
   * away (Spot interruption) or the agent is shutting down.
   */
  evacuate(reason: 'spot' | 'shutdown', deadline: number, now: number): Effect[] {
    if (!this.state.evacuation) {
      this.state.evacuation = {
        reason,
        startedAt: now,
        deadline,
        jobIds: this.state.jobs.filter((job) => !SETTLED_PHASES.has(job.phase)).map((job) => job.jobId),
      };
    } else {
      this.state.evacuation.deadline = Math.min(this.state.evacuation.deadline, deadline);
    }
    for (const job of this.state.jobs) {
      if (job.phase === 'stopping' && job.stop) job.stop.deadline = Math.min(job.stop.deadline, deadline);
    }
    return this.reconcile(now);
  }

  /** Compares desired and actual state and returns what to do. Call on every poll, event and tick. */
  reconcile(now: number): Effect[] {
    const effects: Effect[] = [];
    const wanted = this.effectiveJobs();
    for (const job of this.state.jobs) {
      const want = wanted?.get(job.jobId);
      switch (job.phase) {
        case 'running':
          if (wanted === null) break; // desired state not known yet: keep what runs
          if (!want) this.requestStop(job, this.removalReason(), now, effects);
          else if (want.jobGeneration !== job.jobGeneration) this.requestStop(job, 'rescale', now, effects);
          break;
        case 'stopping':
          if (job.stop && now >= job.stop.deadline) {
            job.stop.timedOut = true;
            this.kill(job, 'stopped', now, effects);
          }
          break;
        case 'backoff':
          if (wanted !== null && (!want || want.jobGeneration !== job.jobGeneration)) {
            job.phase = 'stopped';
            job.restartAt = null;
            this.reportStopped(job, this.removalReason(want), false, now, effects);
          } else if (job.restartAt !== null && now >= job.restartAt) {
            this.startIncarnation(job, want ?? job.desired, now, effects);
          }
          break;
        default:
          break; // killing waits for exits; stopped, finished and failed wait for the desired state
      }
    }
    if (wanted !== null) {
      for (const want of wanted.values()) {
        const job = this.findJob(want.jobId);
        if (!job) this.startIncarnation(this.newRecord(want), want, now, effects);
        else if (job.phase === 'stopped' && !(job.gangBroken && want.jobGeneration === job.jobGeneration))
          this.startIncarnation(job, want, now, effects);
        else if (job.phase === 'failed' && want.jobGeneration !== job.jobGeneration) {
          this.startIncarnation(job, want, now, effects); // a new placement gets a fresh chance
        }
      }
    }
    this.collectGarbage(effects);
    return effects;
  }

  handleReport(ref: string, report: WorkerReport, now: number): Effect[] {
    const found = this.findSlot(ref);
    if (!found) return [];
    const { job, slot } = found;
    const effects: Effect[] = [];
    const firstReport = slot.lastStep === null;
    switch (report.event) {
      case 'started':
        slot.lastStep = report.step;
        break;
      case 'progress': {
        slot.lastStep = report.step;
        if (job.phase !== 'running') break;
        const window = this.progressWindow(job);
        const running = job.workers.filter((worker) => worker.running).map((worker) => worker.localRank);
        const summary = window.record(slot.localRank, report, running, now);
        if (summary) {
          effects.push(
            this.telemetry(now, {
              type: 'progress',
              jobId: job.jobId,
              jobGeneration: job.jobGeneration,
              ...summary,
              gpuUtilization: this.meanUtilization(job),
            }),
          );
        }
        break;
      }
      case 'checkpoint':
        if (!job.checkpoint || report.step >= job.checkpoint.step) {
          job.checkpoint = { uri: job.desired.checkpointUri, step: report.step };
        }
        if (job.reportedCheckpointStep !== report.step) {
          job.reportedCheckpointStep = report.step;
          effects.push(
            this.telemetry(now, {
              type: 'checkpointed',
              jobId: job.jobId,
              jobGeneration: job.jobGeneration,
              step: report.step,
              uri: report.uri,
            }),
          );
        }
        break;
      case 'finished':
        slot.lastStep = report.step;
        job.finishedStep = Math.max(job.finishedStep ?? 0, report.step);
        break;
      case 'error':
        job.lastError = report.message;
        break;
    }
    if (firstReport && slot.lastStep !== null && slot.running && job.phase === 'stopping') {
      effects.push({ kind: 'signal', ref: slot.ref, signal: 'SIGUSR2' }); // the stop request it was spared
    }
    return effects;
  }

  handleExit(ref: string, exit: WorkerExit, now: number): Effect[] {
    const found = this.findSlot(ref);
    if (!found?.slot.running) return [];
    const { job, slot } = found;
    const effects: Effect[] = [];
    slot.running = false;
    slot.exitCode = exit.code;
    slot.exitSignal = exit.signal;
    const kind = exit.spawnError !== undefined ? 'spawnFailed' : classifyExit(exit.code);
    if (job.phase === 'running') {
      if (kind === 'spawnFailed') {
        job.failure = { reason: `worker could not be started: ${exit.spawnError}`, exitCode: null };
        this.kill(job, 'failed', now, effects);
      } else if (kind === 'badConfiguration') {
        job.failure = {
          // The control plane adds the exit code to the reason it records.
          reason: `bad configuration${job.lastError ? `: ${job.lastError}` : ''}`,
          exitCode: exit.code,
        };
        this.kill(job, 'failed', now, effects);
      } else if (isGang(job.desired) && kind !== 'finished') {
        this.breakGang(job, now, effects);
      } else if (kind === 'crash' || kind === 'checkpointed' || kind === 'gangBroken') {
        // An exit 75 nobody asked for is as unexpected as a crash; the restart still resumes from
        // the newest complete checkpoint, so the checkpoint it may have written is not lost.
        job.crashes += 1;
        job.lastCrash = { exitCode: exit.code, signal: exit.signal };
        if (job.crashes >= this.config.maxCrashes) {
          job.failure = {
            reason: `crashed ${job.crashes} times (last: ${describeExit(exit)})${job.lastError ? `: ${job.lastError}` : ''}`,
            exitCode: exit.code,
          };
          this.kill(job, 'failed', now, effects);
        } else {
          this.kill(job, 'backoff', now, effects);
        }
      }
      // exit 0: wait for the other workers to finish too
    } else if (
      job.phase === 'stopping' &&
      (kind === 'crash' || kind === 'badConfiguration' || kind === 'spawnFailed' || kind === 'gangBroken')
    ) {
      // A worker died while checkpointing: its peers cannot complete the collective checkpoint.
      this.kill(job, 'stopped', now, effects);
    }
    this.settleIfAllExited(job, now, effects);
    return effects;
  }

  /** True when no worker of any job is running (used to finish an evacuation). */
  isQuiescent(): boolean {
    return this.state.jobs.every((job) => job.workers.every((worker) => !worker.running));
  }

  /** Checkpoint state of the jobs an evacuation concerned. */
  evacuationSummary(): JobCheckpointSummary[] {
    const evacuation = this.state.evacuation;
    if (!evacuation) return [];
    return evacuation.jobIds.flatMap((jobId) => {
      const job = this.findJob(jobId);
      if (!job) return [];
      return [
        {
          jobId,
          jobGeneration: job.jobGeneration,
          step: job.checkpoint?.step ?? null,
          timedOut: job.stop?.timedOut ?? false,
        },
      ];
    });
  }

  jobSummaries(): JobSummary[] {
    return this.state.jobs.map((job) => {
      const steps = job.workers.map((worker) => worker.lastStep).filter((step) => step !== null);
      return {
        jobId: job.jobId,
        jobGeneration: job.jobGeneration,
        phase: job.phase,
        step: job.finishedStep ?? (steps.length > 0 ? Math.min(...steps) : null),
        checkpointStep: job.checkpoint?.step ?? null,
        crashes: job.crashes,
        workers: job.workers.map((worker) => ({
          ref: worker.ref,
          rank: worker.rank,
          localRank: worker.localRank,
          gpuIndices: worker.gpuIndices,
          step: worker.lastStep,
          running: worker.running,
        })),
      };
    });
  }

  /** Refs of workers the reconciler believes are running. */
  runningRefs(): string[] {
    return this.state.jobs.flatMap((job) =>
      job.workers.filter((worker) => worker.running).map((worker) => worker.ref),
    );
  }

  /** Whether the ref belongs to a worker that was asked to checkpoint and stop (SIGUSR2). */
  stopRequested(ref: string): boolean {
    const found = this.findSlot(ref);
    return found !== undefined && found.job.stop !== null && found.job.phase !== 'running';
  }

  snapshot(): ReconcilerState {
    return structuredClone(this.state);
  }

  // ------------------------------------------------------------------ transitions

  private startIncarnation(job: JobRecord, want: DesiredJob, now: number, effects: Effect[]): void {
    // After a gang break the crashes carry over to the next placement: a worker that crashes every time fails
    // the job after maxCrashes instead of requeueing it for ever.
    if ((want.jobGeneration !== job.jobGeneration && !job.gangBroken) || job.phase === 'failed') {
      job.crashes = 0;
      job.lastCrash = null;
      job.failure = null;
    }
    if (job.checkpoint && job.checkpoint.uri !== want.checkpointUri) job.checkpoint = null;
    const resumeStep = resumeStepOfPart(
      want,
      job.checkpoint?.step ?? null,
      this.checkpoints.newestComplete(want.checkpointUri),
    );
    job.jobGeneration = want.jobGeneration;
    job.desired = want;
    job.attempt += 1;
    job.phase = 'running';
    job.resumeStep = resumeStep;
    job.stop = null;
    job.afterKill = null;
    job.restartAt = null;
    job.finishedStep = null;
    job.lastError = null;
    job.gangBroken = false;
    job.workers = want.workers.map((worker) => ({
      ref: `${job.jobId}/g${job.jobGeneration}/a${job.attempt}/r${worker.localRank}`,
      rank: worker.rank,
      localRank: worker.localRank,
      gpuIndices: worker.gpuIndices,
      running: true,
      exitCode: null,
      exitSignal: null,
      lastStep: null,
    }));
    this.progress.delete(job.jobId);
    want.workers.forEach((worker, index) => {
      effects.push({ kind: 'spawn', ref: job.workers[index]!.ref, job: want, worker, resumeStep });
    });
    effects.push(
      this.telemetry(now, {
        type: 'started',
        jobId: job.jobId,
        jobGeneration: job.jobGeneration,
        attempt: job.attempt,
        resumeStep,
        workers: want.workers.map((worker) => ({
          rank: worker.rank,
          localRank: worker.localRank,
          gpuIndices: worker.gpuIndices,
        })),
      }),
    );
  }

  /**
   * A worker of a job spread over several hosts failed or lost a peer. Restarting this host's part alone cannot
   * work — its peers elsewhere failed too, or are gone with their host — so every local worker is stopped and
   * the stop is reported with reason `gang`: the control plane requeues the whole job and places it again from
   * its newest checkpoint. Whether a worker here crashed on its own is counted once all have exited.
   */
  private breakGang(job: JobRecord, now: number, effects: Effect[]): void {
    job.gangBroken = true;
    job.stop = { reason: 'gang', requestedAt: now, deadline: now, timedOut: false };
    this.kill(job, 'stopped', now, effects);
  }

  /**
   * A worker of the broken gang that exited on its own with a crash (not 0, 75 or 76 — which only says a peer
   * was lost — and not the SIGKILL the agent sent) counts as one crash; at maxCrashes the job fails.
   */
  private countGangCrash(job: JobRecord): void {
    const crashed = job.workers.find(
      (w) =>
        (w.exitCode !== null && w.exitCode !== 0 && classifyExit(w.exitCode) === 'crash') ||
        (w.exitCode === null && w.exitSignal !== null && w.exitSignal !== 'SIGKILL'),
    );
    if (!crashed) return;
    job.crashes += 1;
    const exit = { code: crashed.exitCode, signal: crashed.exitSignal };
    job.lastCrash = { exitCode: exit.code, signal: exit.signal };
    if (job.crashes < this.config.maxCrashes) return;
    job.failure = {
      reason: `crashed ${job.crashes} times (last: ${describeExit(exit)})${job.lastError ? `: ${job.lastError}` : ''}`,
      exitCode: exit.code,
    };
    job.afterKill = 'failed';
    job.gangBroken = false;
  }

  private requestStop(job: JobRecord, reason: StopReason, now: number, effects: Effect[]): void {
    const evacuationDeadline = this.state.evacuation?.deadline ?? Number.POSITIVE_INFINITY;
    const fence = this.state.fence;
    const fenceDeadline = fence?.fenced
      ? now + (fence.terms?.graceSeconds ?? 0) * 1000
      : Number.POSITIVE_INFINITY;
    job.phase = 'stopping';
    job.stop = {
      reason,
      requestedAt: now,
      deadline: Math.min(now + this.config.checkpointTimeoutMs, evacuationDeadline, fenceDeadline),
      timedOut: false,
    };
    if (job.workers.every((worker) => worker.lastStep === null)) {
      // None has reported `started`: none trained anything there is to save (they may be waiting in a rendezvous
      // for a peer that will never come), so they are not left to run until the deadline.
      this.kill(job, 'stopped', now, effects);
      return;
    }
    for (const worker of job.workers) {
      // A worker that has not reported `started` may not have installed its signal handlers yet, and
      // SIGUSR2's default action would kill it; it has trained nothing either. It gets the request
      // when its `started` line arrives (the deadline still applies).
      if (worker.running && worker.lastStep !== null) {
        effects.push({ kind: 'signal', ref: worker.ref, signal: 'SIGUSR2' });
      }
    }
    this.settleIfAllExited(job, now, effects);
  }

  private kill(
    job: JobRecord,
    afterKill: NonNullable<JobRecord['afterKill']>,
    now: number,
    effects: Effect[],
  ): void {
    job.phase = 'killing';
    job.afterKill = afterKill;
    for (const worker of job.workers) {
      if (worker.running) effects.push({ kind: 'signal', ref: worker.ref, signal: 'SIGKILL' });
    }
    this.settleIfAllExited(job, now, effects);
  }

  /** Once the last worker of an incarnation is gone, decides where the job goes next. */
  private settleIfAllExited(job: JobRecord, now: number, effects: Effect[]): void {
    if (!ACTIVE_PHASES.has(job.phase) || job.workers.some((worker) => worker.running)) return;
    const allFinished = job.workers.every((worker) => worker.exitCode === 0);
    if ((job.phase === 'running' || job.phase === 'stopping') && allFinished) {
      job.phase = 'finished';
      const step = job.finishedStep ?? job.desired.totalSteps;
      job.finishedStep = step;
      effects.push(
        this.telemetry(now, { type: 'finished', jobId: job.jobId, jobGeneration: job.jobGeneration, step }),
      );
      return;
    }
    if (job.phase === 'killing' && job.afterKill === 'stopped' && job.gangBroken) this.countGangCrash(job);
    if (job.phase === 'stopping' || (job.phase === 'killing' && job.afterKill === 'stopped')) {
      job.phase = 'stopped';
      this.reportStopped(job, job.stop?.reason ?? 'unassigned', job.stop?.timedOut ?? false, now, effects);
      return;
    }
    if (job.phase === 'killing' && job.afterKill === 'backoff') {
      const backoffMs = crashBackoffMs(job.crashes, this.config.backoffBaseMs, this.config.backoffMaxMs);
      job.phase = 'backoff';
      job.restartAt = now + backoffMs;
      effects.push(
        this.telemetry(now, {
          type: 'restarting',
          jobId: job.jobId,
          jobGeneration: job.jobGeneration,
          crashes: job.crashes,
          exitCode: job.lastCrash?.exitCode ?? null,
          signal: job.lastCrash?.signal ?? null,
          backoffSeconds: backoffMs / 1000,
        }),
      );
      return;
    }
    // killing → failed (or, defensively, a running incarnation that ended in a mix of exit codes)
    job.phase = 'failed';
    const failure = job.failure ?? { reason: 'workers exited with mixed exit codes', exitCode: null };
    job.failure = failure;
    effects.push(
      this.telemetry(now, {
        type: 'failed',
        jobId: job.jobId,
        jobGeneration: job.jobGeneration,
        reason: failure.reason,
        exitCode: failure.exitCode,
        crashes: job.crashes,
      }),
    );
  }

  /**
   * Confirms the checkpoint the job can resume from, then reports the stop. The checkpoint comes from
   * rank 0's report line when rank 0 ran here, otherwise from storage (file:// only).
   */
  private reportStopped(
    job: JobRecord,
    reason: StopReason,
    timedOut: boolean,
    now: number,
    effects: Effect[],
  ): void {
    const uri = job.desired.checkpointUri;
    const stored = this.checkpoints.newestComplete(uri);
    if (stored !== null && (!job.checkpoint || stored > job.checkpoint.step))
      job.checkpoint = { uri, step: stored };
    if (job.checkpoint && job.reportedCheckpointStep !== job.checkpoint.step) {
      job.reportedCheckpointStep = job.checkpoint.step;
      effects.push(
        this.telemetry(now, {
          type: 'checkpointed',
          jobId: job.jobId,
          jobGeneration: job.jobGeneration,
          step: job.checkpoint.step,
          uri: job.checkpoint.uri,
        }),
      );
    }
    effects.push(
      this.telemetry(now, {
        type: 'stopped',
        jobId: job.jobId,
        jobGeneration: job.jobGeneration,
        reason,
        checkpointStep: job.checkpoint?.step ?? null,
        timedOut,
      }),
    );
  }

  // ------------------------------------------------------------------ helpers

  /** Jobs that should run now; null while no desired state has been accepted yet. */
  private effectiveJobs(): Map<string, DesiredJob> | null {
    if (this.state.evacuation || this.fenced) return new Map();
    if (!this.desired) return null;
    if (this.desired.drain || this.desired.stop) return new Map();
    return new Map(this.desired.jobs.map((job) => [job.jobId, job]));
  }

  private removalReason(want?: DesiredJob): StopReason {
    if (this.state.evacuation) return this.state.evacuation.reason;
    if (this.fenced) return 'fenced';
    if (this.desired?.drain) return 'drain';
    return want ? 'rescale' : 'unassigned';
  }

  /** Forgets settled jobs the desired state no longer mentions (kept during an evacuation for its summary). */
  private collectGarbage(effects: Effect[]): void {
    if (!this.desired || this.state.evacuation) return;
    const mentioned = new Set(this.desired.jobs.map((job) => job.jobId));
    for (let index = this.state.jobs.length - 1; index >= 0; index--) {
      const job = this.state.jobs[index]!;
      if (SETTLED_PHASES.has(job.phase) && !mentioned.has(job.jobId)) {
        this.state.jobs.splice(index, 1);
        this.progress.delete(job.jobId);
        effects.push({ kind: 'release', jobId: job.jobId });
      }
    }
  }

  private fenceState(): NonNullable<ReconcilerState['fence']> {
    this.state.fence ??= { terms: null, contact: null, fenced: null };
    return this.state.fence;
  }

  private newRecord(want: DesiredJob): JobRecord {
    const job: JobRecord = {
      jobId: want.jobId,
      jobGeneration: want.jobGeneration,
      desired: want,
      phase: 'stopped',
      attempt: 0,
      crashes: 0,
      resumeStep: want.resumeStep,
      workers: [],
      checkpoint: null,
      reportedCheckpointStep: null,
      stop: null,
      afterKill: null,
      restartAt: null,
      lastCrash: null,
      failure: null,
      finishedStep: null,
      lastError: null,
    };
    this.state.jobs.push(job);
    return job;
  }

  private findJob(jobId: string): JobRecord | undefined {
    return this.state.jobs.find((job) => job.jobId === jobId);
  }

  private findSlot(ref: string): { job: JobRecord; slot: WorkerSlot } | undefined {
    for (const job of this.state.jobs) {
      const slot = job.workers.find((worker) => worker.ref === ref);
      if (slot) return { job, slot };
    }
    return undefined;
  }

  private progressWindow(job: JobRecord): ProgressWindow {
    let window = this.progress.get(job.jobId);
    if (!window) {
      window = new ProgressWindow(this.config.progressIntervalMs);
      this.progress.set(job.jobId, window);
    }
    return window;
  }

  private meanUtilization(job: JobRecord): number | null {
    const values = job.workers
      .flatMap((worker) => worker.gpuIndices)
      .map((index) => this.gpuUtilization.get(index))
      .filter((value): value is number => typeof value === 'number');
    return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
  }

  private telemetry(now: number, body: MessageBody): Effect {
    return {
      kind: 'telemetry',
      message: { ...body, hostId: this.config.hostId, at: now / 1000 } as TelemetryMessage,
    };
  }
}

/** A job whose workers span several hosts: this host runs only part of its gang. */
function isGang(job: DesiredJob): boolean {
  return job.worldSize > job.workers.length;
}

function describeExit(exit: WorkerExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  if (exit.code === null) return 'exit status unknown';
  return `exit code ${exit.code}`;
}
