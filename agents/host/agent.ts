/**
 * The agent's imperative shell: discovers the host, registers it, polls the desired state, runs the
 * worker processes the reconciler asks for, turns their report lines into telemetry, watches for Spot
 * interruptions and drains on shutdown. All decisions are the reconciler's (reconciler.ts).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { validateDesiredState } from '../../lib/protocol/desired-state.ts';
import type { HeartbeatMessage, HostTopology, TelemetryMessage } from '../../lib/protocol/telemetry.ts';
import {
  buildWorkerEnv,
  EXIT_CHECKPOINTED,
  parseReportLine,
  type WorkerReport,
} from '../../lib/protocol/worker-protocol.ts';
import { type CheckpointCatalog, localCheckpointCatalog } from './checkpoint-catalog.ts';
import { type Clock, systemClock } from './clock.ts';
import type { GpuDiscovery, GpuSample } from './discovery/gpus.ts';
import type { SpotNotice } from './discovery/imds.ts';
import { socketInterfaceEnv } from './discovery/network-interface.ts';
import { errorMessage, type Logger, silentLogger } from './logger.ts';
import type { ChunkLimits } from './logs/chunk-policy.ts';
import { LogShipper, type LogSink } from './logs/log-shipper.ts';
import { DesiredStateFormatError, type DesiredStateSource } from './ports/desired-state-source.ts';
import type { TelemetrySink } from './ports/telemetry-sink.ts';
import { ReportTail } from './process/report-tail.ts';
import { processLauncher, type WorkerHandle, type WorkerLauncher } from './process/worker-launcher.ts';
import { type Effect, Reconciler, type WorkerExit } from './reconciler.ts';
import { withoutStaleEvacuation } from './restored-evacuation.ts';
import { type PersistedProcess, readStateFile, writeStateFile } from './state-file.ts';
import type { CheckpointStaging } from './storage/checkpoint-staging.ts';
import type { HostDataCredentials } from './storage/data-credentials.ts';
import { OrderedGate } from './storage/ordered-gate.ts';
import { stagedLauncher } from './storage/staged-launcher.ts';
import { TelemetryBuffer } from './telemetry-buffer.ts';
import { usesWorkspace, type WorkspaceLauncher } from './workspace/workspace-launcher.ts';

export const AGENT_VERSION = '0.1.0';

export interface AgentTimings {
  /** How often the desired state is read. */
  pollIntervalMs: number;
  heartbeatIntervalMs: number;
  /** How often worker output is read, worker liveness checked and deadlines evaluated. */
  tickIntervalMs: number;
  telemetryFlushIntervalMs: number;
  spotPollIntervalMs: number;
  checkpointTimeoutMs: number;
  /** Upper bound for checkpointing everything after a Spot notice (also capped by the notice's time). */
  spotDeadlineMs: number;
  /** Upper bound for the graceful drain on SIGTERM. */
  drainTimeoutMs: number;
  maxCrashes: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  progressIntervalMs: number;
}

export interface HostIdentity {
  instanceId: string | null;
  instanceType: string | null;
  availabilityZone: string | null;
}

export interface SpotNoticeSource {
  spotNotice(): Promise<SpotNotice | null>;
}

export interface AgentDependencies {
  hostId: string;
  identity: HostIdentity;
  topology: HostTopology | null;
  gpus: GpuDiscovery;
  desiredState: DesiredStateSource;
  telemetry: TelemetrySink;
  /** Where the state file and worker logs live. */
  stateDir: string;
  timings: AgentTimings;
  spotNotices?: SpotNoticeSource | null;
  launcher?: WorkerLauncher;
  checkpoints?: CheckpointCatalog;
  /** Stages s3:// checkpoints through local directories (storage/checkpoint-staging.ts); none: file:// only. */
  checkpointStaging?: CheckpointStaging | null;
  clock?: Clock;
  logger?: Logger;
  /** Environment workers inherit (minus TESSERA_*); the agent's own by default. */
  workerEnv?: NodeJS.ProcessEnv;
  /**
   * Where other hosts reach this one (reported at registration: the rendezvous of jobs whose rank 0 runs here),
   * and the network interface that carries it (given to workers as GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME).
   */
  network?: { address: string; interfaceName: string | null };
  /** Where worker output is shipped (logs/log-shipper.ts); none: it stays on the host only. */
  logSink?: LogSink | null;
  logLimits?: ChunkLimits;
  /** Job-data credentials vended to this host (for storage/s3-client.ts); absent with a file desired state. */
  dataCredentials?: HostDataCredentials;
  /** Starts workers of jobs with a `workdir`, `image` or `setup`; without it such jobs fail with the reason. */
  workspaces?: WorkspaceLauncher | null;
}

/** Seconds a drain waits for the last log chunks to upload. */
const LOG_FLUSH_ON_DRAIN_SECONDS = 10;

interface WatchedWorker {
  handle: WorkerHandle;
  tail: ReportTail;
  stdoutPath: string;
  stderrPath: string;
  stopRequested: boolean;
  killed: boolean;
  sawFinished: boolean;
}

/**
 * Exit status of a re-adopted worker, which is not our child so its real status is unknowable:
 * inferred from what we saw. Safe even when wrong, because a restart always resumes from the newest
 * complete checkpoint, never from what the worker claimed.
 */
export function inferAdoptedExit(seen: {
  sawFinished: boolean;
  killed: boolean;
  stopRequested: boolean;
}): WorkerExit {
  if (seen.sawFinished) return { code: 0, signal: null };
  if (seen.killed) return { code: null, signal: 'SIGKILL' };
  if (seen.stopRequested) return { code: EXIT_CHECKPOINTED, signal: null };
  return { code: null, signal: null };
}

export class HostAgent {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly launcher: WorkerLauncher;
  private readonly checkpoints: CheckpointCatalog;
  private readonly buffer: TelemetryBuffer;
  private readonly statePath: string;
  private readonly logDir: string;
  private reconciler: Reconciler;
  private readonly logs: LogShipper | null;
  private readonly workers = new Map<string, WatchedWorker>();
  private readonly timers: NodeJS.Timeout[] = [];
  private gpus: GpuSample[] = [];
  private polling = false;
  private spotPolling = false;
  private lastRejection: string | null = null;
  private heartbeatWarned = false;
  private spotNotice: SpotNotice | null = null;
  private evacuationReported = false;
  private evacuationWaiters: (() => void)[] = [];
  private running = false;
  private readonly staging: CheckpointStaging | null;
  /** Per job: checkpoint reports wait for their upload, and later reports and exits wait behind them. */
  private readonly gate: OrderedGate;

  constructor(private readonly deps: AgentDependencies) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? silentLogger;
    this.staging = deps.checkpointStaging ?? null;
    const base = deps.launcher ?? processLauncher;
    // Checkpoint staging first (it settles the checkpoint directory), then the job's workspace and container.
    const launcher = deps.workspaces ? deps.workspaces.around(base) : base;
    this.launcher = this.staging ? stagedLauncher(launcher, this.staging, this.logger) : launcher;
    this.checkpoints = deps.checkpoints ?? this.staging?.catalog ?? localCheckpointCatalog;
    this.gate = new OrderedGate((error) =>
      this.logger.error('held job event failed', { error: errorMessage(error) }),
    );
    this.buffer = new TelemetryBuffer(
      deps.telemetry,
      this.logger,
      undefined,
      join(deps.stateDir, 'telemetry-outbox.json'),
      {
        now: () => this.clock.now(),
        // What the control plane counts as a sign of life (fence.ts).
        delivered: (batch, startedAt) => {
          if (batch.some((m) => m.type === 'heartbeat' || m.type === 'register'))
            this.reconciler.noteContact('telemetryAt', startedAt);
        },
      },
    );
    this.statePath = join(deps.stateDir, 'agent-state.json');
    this.logDir = join(deps.stateDir, 'logs');
    this.logs = deps.logSink
      ? new LogShipper({
          sink: deps.logSink,
          hostId: deps.hostId,
          statePath: join(deps.stateDir, 'log-shipping.json'),
          clock: this.clock,
          logger: this.logger,
          ...(deps.logLimits ? { limits: deps.logLimits } : {}),
        })
      : null;
    this.reconciler = this.newReconciler();
  }

  get hostId(): string {
    return this.deps.hostId;
  }

  /** Pids of the worker processes the agent currently runs or watches. */
  workerPids(): number[] {
    return [...this.workers.values()].map((worker) => worker.handle.pid).filter((pid) => pid !== null);
  }

  /** GPUs some running worker is assigned to (the simulated GPU backend reports them busy). */
  busyGpus(): Set<number> {
    const busy = new Set<number>();
    const running = this.reconciler
      .jobSummaries()
      .flatMap((job) => job.workers.filter((worker) => worker.running));
    for (const worker of running) {
      for (const gpu of worker.gpuIndices) busy.add(gpu);
    }
    return busy;
  }

  async start(): Promise<void> {
    mkdirSync(this.logDir, { recursive: true });
    this.logs?.load();
    this.gpus = await this.deps.gpus.sample();
    this.reconciler.observeGpuUtilization(this.gpus);
    this.restore();
    this.reconciler.startContactClock(this.clock.now());
    // Runs whose worker ended while no agent watched: ship the rest of their output and close them.
    this.logs?.exitedUnless(new Set(this.workers.keys()));
    this.push({
      type: 'register',
      hostId: this.deps.hostId,
      at: this.clock.now() / 1000,
      ...this.deps.identity,
      gpus: this.gpus.map(({ index, uuid, name, memoryTotalMiB }) => ({ index, uuid, name, memoryTotalMiB })),
      topology: this.deps.topology,
      agentVersion: AGENT_VERSION,
      ...(this.deps.network ? { address: this.deps.network.address } : {}),
    });
    this.running = true;
    await this.pollDesiredState();
    this.sendHeartbeat();
    await this.buffer.flush();
    const t = this.deps.timings;
    this.every(t.tickIntervalMs, () => this.tick());
    this.every(t.pollIntervalMs, () => this.pollDesiredState());
    this.every(t.heartbeatIntervalMs, () => this.heartbeat());
    this.every(t.telemetryFlushIntervalMs, () => this.buffer.flush());
    if (this.deps.spotNotices) this.every(t.spotPollIntervalMs, () => this.pollSpotNotice());
    this.logger.info('agent started', { hostId: this.deps.hostId, gpus: this.gpus.length });
  }

  /**
   * Graceful drain (SIGTERM): checkpoint and stop every worker, wait for them (bounded by the drain
   * timeout), report, flush telemetry and stop. Workers still alive after the deadline are killed.
   */
  async drainAndStop(): Promise<void> {
    const now = this.clock.now();
    const deadline = now + this.deps.timings.drainTimeoutMs;
    this.readAllReports();
    this.apply(this.reconciler.evacuate('shutdown', deadline, now));
    this.checkEvacuation();
    // Killed workers need a moment to be reaped; never wait forever on an unkillable process.
    await this.evacuated(this.deps.timings.drainTimeoutMs + 5_000);
    await this.logs?.flush(LOG_FLUSH_ON_DRAIN_SECONDS);
    await this.logs?.stop();
    this.sendHeartbeat();
    this.stopTimers();
    this.persist();
    await this.buffer.flush();
    this.logger.info('agent drained and stopped', { hostId: this.deps.hostId });
  }

  /**
   * Stops the agent without touching its workers, as if the agent process died: they keep running
   * and the next agent re-adopts them from the state file.
   */
  async abandon(): Promise<void> {
    this.stopTimers();
    this.persist();
    for (const worker of this.workers.values()) {
      worker.handle.detach();
      worker.tail.close();
    }
    this.workers.clear();
    await this.logs?.stop();
    await this.buffer.flush();
  }

  /** Resolves when a Spot or shutdown evacuation has been completed and reported. */
  evacuated(timeoutMs: number): Promise<boolean> {
    if (this.evacuationReported) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.evacuationWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  // ------------------------------------------------------------------ loops

  private tick(): void {
    for (const [ref, worker] of [...this.workers]) {
      this.readReports(ref, worker, false);
      worker.handle.poll();
    }
    this.checkFence();
    this.apply(this.reconciler.reconcile(this.clock.now()));
    this.checkEvacuation();
    this.logs?.tick();
  }

  /** Out of contact with the control plane too long: stop every worker before it gives this host up (fence.ts). */
  private checkFence(): void {
    if (this.reconciler.fenced) return; // tick() has just read every worker's report lines
    const effects = this.reconciler.checkFence(this.clock.now());
    if (!this.reconciler.fenced) return;
    this.logger.warn('out of contact with the control plane: fenced, stopping every worker', {
      workers: this.workers.size,
    });
    this.apply(effects);
    this.persist();
  }

  /** Report lines written so far by every worker, so the reconciler knows which have started. */
  private readAllReports(): void {
    for (const [ref, worker] of [...this.workers]) this.readReports(ref, worker, false);
  }

  private async pollDesiredState(): Promise<void> {
    if (this.polling || !this.running) return;
    this.polling = true;
    const startedAt = this.clock.now();
    try {
      const raw = await this.deps.desiredState.read();
      this.reconciler.noteContact('desiredStateAt', startedAt);
      if (raw === null || !this.running) return;
      const result = validateDesiredState(raw, {
        hostId: this.deps.hostId,
        gpuIndices: this.gpus.map((gpu) => gpu.index),
        lastAcceptedGeneration: this.reconciler.appliedGeneration,
      });
      if (!result.ok) {
        this.reject(result.generation, result.issues);
        return;
      }
      this.lastRejection = null;
      this.readAllReports(); // a stop decision must know every worker that has already reported `started`
      const wasFenced = this.reconciler.fenced;
      this.reconciler.applyDesired(result.state);
      if (wasFenced && !this.reconciler.fenced)
        this.logger.info('fence lifted by a newer desired state', { generation: result.state.generation });
      this.warnIfHeartbeatsTooRare(result.state.fence?.afterSeconds);
      this.apply(this.reconciler.reconcile(this.clock.now()));
    } catch (error) {
      if (error instanceof DesiredStateFormatError) this.reject(null, [error.message]);
      else this.logger.warn('could not read the desired state', { error: errorMessage(error) });
    } finally {
      this.polling = false;
    }
  }

  /** A heartbeat interval near the fence would fence a healthy agent between two heartbeats: said once. */
  private warnIfHeartbeatsTooRare(afterSeconds: number | undefined): void {
    const every = this.deps.timings.heartbeatIntervalMs / 1000;
    if (afterSeconds === undefined || every <= afterSeconds / 3 || this.heartbeatWarned) return;
    this.heartbeatWarned = true;
    this.logger.warn('heartbeat interval too long for the control plane’s fence: lower --heartbeat-ms', {
      heartbeatSeconds: every,
      fenceSeconds: afterSeconds,
    });
  }

  /** Reports a rejected desired state once (not on every poll), keeps running what runs. */
  private reject(generation: number | null, issues: string[]): void {
    const key = JSON.stringify([generation, issues]);
    if (key === this.lastRejection) return;
    this.lastRejection = key;
    this.logger.warn('desired state rejected', { generation, issues });
    this.push({
      type: 'desiredStateRejected',
      hostId: this.deps.hostId,
      at: this.clock.now() / 1000,
      generation,
      issues,
    });
  }

  private async heartbeat(): Promise<void> {
    try {
      this.gpus = await this.deps.gpus.sample();
      this.reconciler.observeGpuUtilization(this.gpus);
    } catch (error) {
      this.logger.warn('GPU sampling failed', { error: errorMessage(error) });
    }
    this.sendHeartbeat();
    this.persist(); // also saves the log offsets read since the last change
  }

  private sendHeartbeat(): void {
    const jobs: HeartbeatMessage['jobs'] = this.reconciler.jobSummaries().map((job) => ({
      jobId: job.jobId,
      jobGeneration: job.jobGeneration,
      phase: job.phase,
      step: job.step,
      checkpointStep: job.checkpointStep,
      crashes: job.crashes,
      workers: job.workers.map(({ ref, ...worker }) => ({
        ...worker,
        pid: this.workers.get(ref)?.handle.pid ?? null,
      })),
    }));
    this.push({
      type: 'heartbeat',
      hostId: this.deps.hostId,
      at: this.clock.now() / 1000,
      appliedGeneration: this.reconciler.appliedGeneration,
      draining: this.reconciler.draining,
      evacuating: this.reconciler.evacuation?.reason ?? null,
      gpus: this.gpus.map(({ index, utilization, memoryUsedMiB }) => ({ index, utilization, memoryUsedMiB })),
      jobs,
    });
  }

  private async pollSpotNotice(): Promise<void> {
    if (this.spotPolling || this.spotNotice || !this.deps.spotNotices) return;
    this.spotPolling = true;
    try {
      const notice = await this.deps.spotNotices.spotNotice();
      if (!notice || this.spotNotice || !this.running) return;
      this.spotNotice = notice;
      const now = this.clock.now();
      const deadline = Math.min(
        now + this.deps.timings.spotDeadlineMs,
        notice.time ?? Number.POSITIVE_INFINITY,
      );
      this.logger.warn('Spot interruption notice: checkpointing every job', { ...notice, deadline });
      this.readAllReports();
      this.apply(this.reconciler.evacuate('spot', deadline, now));
      this.checkEvacuation();
    } catch (error) {
      this.logger.warn('Spot notice poll failed', { error: errorMessage(error) });
    } finally {
      this.spotPolling = false;
    }
  }

  /** Reports a finished evacuation once every worker is gone. */
  private checkEvacuation(): void {
    const evacuation = this.reconciler.evacuation;
    if (!evacuation || this.evacuationReported || !this.reconciler.isQuiescent()) return;
    this.evacuationReported = true;
    const checkpoints = this.reconciler.evacuationSummary();
    const at = this.clock.now() / 1000;
    if (evacuation.reason === 'spot') {
      this.push({
        type: 'spotInterruption',
        hostId: this.deps.hostId,
        at,
        action: this.spotNotice?.action ?? 'unknown',
        noticeTime: this.spotNotice?.time != null ? this.spotNotice.time / 1000 : null,
        checkpoints,
      });
    } else {
      this.push({ type: 'hostDrained', hostId: this.deps.hostId, at, reason: 'shutdown', checkpoints });
    }
    void this.buffer.flush();
    for (const waiter of this.evacuationWaiters.splice(0)) waiter();
  }

  // ------------------------------------------------------------------ effects

  private apply(effects: Effect[]): void {
    if (effects.length === 0) return;
    for (const effect of effects) {
      switch (effect.kind) {
        case 'spawn':
          this.launch(effect);
          break;
        case 'signal':
          this.signal(effect.ref, effect.signal);
          break;
        case 'telemetry':
          this.push(effect.message);
          break;
        case 'release':
          this.deleteLogs(effect.jobId);
          this.staging?.release(effect.jobId);
          this.deps.workspaces?.release(effect.jobId);
          break;
      }
    }
    this.persist();
  }

  private launch(effect: Extract<Effect, { kind: 'spawn' }>): void {
    const file = join(this.logDir, encodeURIComponent(effect.ref));
    const stdoutPath = `${file}.out`;
    const stderrPath = `${file}.err`;
    let handle: WorkerHandle;
    try {
      const spec = {
        ref: effect.ref,
        command: effect.job.command,
        env: buildWorkerEnv(effect.job, effect.worker, effect.resumeStep, this.inheritedWorkerEnv()),
        stdoutPath,
        stderrPath,
        job: effect.job,
        worker: effect.worker,
      };
      if (usesWorkspace(effect.job) && !this.deps.workspaces)
        throw new Error('this agent cannot run jobs with a workdir, image or setup (no workspaces)');
      handle = this.launcher.launch(spec);
    } catch (error) {
      // Report asynchronously: the reconciler is in the middle of producing these effects.
      const spawnError = errorMessage(error);
      queueMicrotask(() => this.settleExit(effect.ref, { code: null, signal: null, spawnError }));
      return;
    }
    const worker: WatchedWorker = {
      handle,
      tail: new ReportTail(stdoutPath),
      stdoutPath,
      stderrPath,
      stopRequested: false,
      killed: false,
      sawFinished: false,
    };
    this.watch(effect.ref, worker);
    this.logs?.track({
      ref: effect.ref,
      jobId: effect.job.jobId,
      rank: effect.worker.rank,
      jobGeneration: effect.job.jobGeneration,
      stdoutPath,
      stderrPath,
    });
    this.logger.info('worker started', { ref: effect.ref, pid: handle.pid, resumeStep: effect.resumeStep });
  }

  /** The agent's environment plus the host's socket interface, unless that environment already names one. */
  private inheritedWorkerEnv(): NodeJS.ProcessEnv {
    const inherited = this.deps.workerEnv ?? process.env;
    return { ...socketInterfaceEnv(this.deps.network?.interfaceName ?? null), ...inherited };
  }

  private watch(ref: string, worker: WatchedWorker): void {
    this.workers.set(ref, worker);
    worker.handle.onExit((exit) => this.onWorkerExit(ref, exit));
  }

  private signal(ref: string, signal: 'SIGUSR2' | 'SIGKILL'): void {
    const worker = this.workers.get(ref);
    if (!worker) return;
    if (signal === 'SIGUSR2') worker.stopRequested = true;
    else worker.killed = true;
    try {
      worker.handle.signal(signal);
    } catch (error) {
      this.logger.error('could not signal worker', { ref, signal, error: errorMessage(error) });
    }
  }

  private onWorkerExit(ref: string, exit: WorkerExit): void {
    const worker = this.workers.get(ref);
    if (!worker) return;
    this.readReports(ref, worker, true); // the last lines (e.g. the checkpoint line) come before the exit
    worker.tail.close();
    this.workers.delete(ref);
    this.logs?.exited(ref);
    const observed =
      worker.handle.exitObservable || exit.spawnError !== undefined ? exit : inferAdoptedExit(worker);
    this.logger.info('worker exited', { ref, pid: worker.handle.pid, ...observed });
    this.gate.run(jobOfRef(ref), () => this.settleExit(ref, observed));
  }

  /** Tells the reconciler a worker is gone and acts on what follows (restart, next generation…). */
  private settleExit(ref: string, exit: WorkerExit): void {
    const now = this.clock.now();
    this.apply(this.reconciler.handleExit(ref, exit, now));
    this.apply(this.reconciler.reconcile(now));
    this.checkEvacuation();
  }

  private readReports(ref: string, worker: WatchedWorker, final: boolean): void {
    let lines: string[];
    try {
      lines = worker.tail.readLines();
      const remainder = final ? worker.tail.takeRemainder() : null;
      if (remainder !== null) lines.push(remainder);
    } catch (error) {
      this.logger.warn('could not read worker output', { ref, error: errorMessage(error) });
      return;
    }
    for (const line of lines) {
      const parsed = parseReportLine(line);
      if (parsed.kind === 'malformed') {
        this.logger.warn('malformed report line ignored', {
          ref,
          event: parsed.event,
          issues: parsed.issues,
        });
      } else if (parsed.kind === 'report') {
        if (parsed.report.event === 'finished') worker.sawFinished = true;
        this.feedReport(ref, parsed.report);
      }
    }
  }

  /**
   * Progress goes to the reconciler at once. A checkpoint of an S3 job is confirmed only once uploaded;
   * checkpoint, finished and error reports (and exits, see onWorkerExit) keep their order behind it.
   */
  private feedReport(ref: string, report: WorkerReport): void {
    const handle = (confirmed: WorkerReport) => {
      this.apply(this.reconciler.handleReport(ref, confirmed, this.clock.now()));
    };
    if (report.event === 'started' || report.event === 'progress') {
      handle(report);
      return;
    }
    const staged = report.event === 'checkpoint' ? this.staging?.stagedStep(report.uri) : undefined;
    if (report.event !== 'checkpoint' || !staged || !this.staging) {
      this.gate.run(jobOfRef(ref), () => handle(report));
      return;
    }
    this.gate.hold(jobOfRef(ref), this.staging.upload(staged), (uploaded) => {
      if (uploaded) handle({ ...report, uri: staged.stepUri });
    });
  }

  private push(message: TelemetryMessage): void {
    this.buffer.push(message);
  }

  private deleteLogs(jobId: string): void {
    const prefix = encodeURIComponent(`${jobId}/`);
    // Output not yet shipped is deleted by the shipper once it is.
    const unshipped = this.logs?.unshippedPaths(jobId) ?? new Set<string>();
    this.logs?.release(jobId);
    try {
      for (const file of readdirSync(this.logDir)) {
        const path = join(this.logDir, file);
        if (file.startsWith(prefix) && !unshipped.has(path)) rmSync(path, { force: true });
      }
    } catch (error) {
      this.logger.warn('could not delete worker logs', { jobId, error: errorMessage(error) });
    }
  }

  // ------------------------------------------------------------------ persistence and re-adoption

  private persist(): void {
    const processes: PersistedProcess[] = [];
    for (const [ref, worker] of this.workers) {
      if (worker.handle.pid === null) continue;
      processes.push({
        ref,
        pid: worker.handle.pid,
        startTime: worker.handle.startTime,
        stdoutPath: worker.stdoutPath,
        stderrPath: worker.stderrPath,
        stdoutOffset: worker.tail.offset,
        stopRequested: worker.stopRequested,
        killed: worker.killed,
      });
    }
    try {
      writeStateFile(this.statePath, {
        version: 1,
        hostId: this.deps.hostId,
        savedAt: this.clock.now(),
        reconciler: this.reconciler.snapshot(),
        processes,
      });
    } catch (error) {
      this.logger.error('could not write the state file', {
        path: this.statePath,
        error: errorMessage(error),
      });
    }
  }

  /**
   * Picks up the workers of a previous agent process. Workers that are still the same process are
   * re-adopted; the exit of those that are gone is inferred and goes through the normal path, so a
   * job with a dead worker has its surviving workers killed and is restarted from its newest
   * complete checkpoint. Processes the state file lists but the reconciler does not expect are
   * stragglers and are killed.
   */
  private restore(): void {
    const file = readStateFile(this.statePath);
    if (file.kind === 'missing') return;
    if (file.kind === 'invalid') {
      this.logger.error('state file unreadable; starting without it', { error: file.error });
      return;
    }
    if (file.state.hostId !== this.deps.hostId) {
      this.logger.error('state file belongs to another host; killing its workers and starting afresh', {
        stateHostId: file.state.hostId,
      });
      for (const process of file.state.processes) this.launcher.adopt(process)?.signal('SIGKILL');
      return;
    }
    const restored = withoutStaleEvacuation(file.state.reconciler, this.clock.now());
    if (restored.cleared)
      this.logger.info('evacuation of the previous agent process is over; running work again', {
        reason: restored.cleared.reason,
        deadline: restored.cleared.deadline,
      });
    this.reconciler = this.newReconciler(restored.state);
    const expected = new Set(this.reconciler.runningRefs());
    const gone: { ref: string; worker: WatchedWorker }[] = [];
    for (const process of file.state.processes) {
      const handle = this.launcher.adopt(process);
      if (!expected.has(process.ref)) {
        handle?.signal('SIGKILL');
        continue;
      }
      expected.delete(process.ref);
      const worker: WatchedWorker = {
        handle: handle ?? goneHandle(process),
        tail: new ReportTail(process.stdoutPath, process.stdoutOffset),
        stdoutPath: process.stdoutPath,
        stderrPath: process.stderrPath,
        stopRequested: process.stopRequested,
        killed: process.killed,
        sawFinished: false,
      };
      if (handle) {
        this.watch(process.ref, worker);
        this.logger.info('worker re-adopted', { ref: process.ref, pid: process.pid });
      } else {
        gone.push({ ref: process.ref, worker });
      }
    }
    // Read what the adopted workers printed while no agent was watching.
    for (const [ref, worker] of this.workers) this.readReports(ref, worker, false);
    for (const { ref, worker } of gone) {
      this.workers.set(ref, worker);
      this.onWorkerExit(ref, { code: null, signal: null });
    }
    // Expected to run but never recorded (the agent died between spawn and persist): unknown exit.
    for (const ref of expected) this.settleExit(ref, { code: null, signal: null });
  }

  private newReconciler(restored?: ConstructorParameters<typeof Reconciler>[2]): Reconciler {
    const t = this.deps.timings;
    return new Reconciler(
      {
        hostId: this.deps.hostId,
        checkpointTimeoutMs: t.checkpointTimeoutMs,
        maxCrashes: t.maxCrashes,
        backoffBaseMs: t.backoffBaseMs,
        backoffMaxMs: t.backoffMaxMs,
        progressIntervalMs: t.progressIntervalMs,
      },
      this.checkpoints,
      restored,
    );
  }

  private every(intervalMs: number, body: () => unknown): void {
    const timer = setInterval(() => {
      try {
        const result = body();
        if (result instanceof Promise)
          result.catch((error) => this.logger.error('loop failed', { error: errorMessage(error) }));
      } catch (error) {
        this.logger.error('loop failed', { error: errorMessage(error) });
      }
    }, intervalMs);
    this.timers.push(timer);
  }

  private stopTimers(): void {
    this.running = false;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }
}

/** The job of a worker ref (`<jobId>/g<generation>/a<attempt>/r<localRank>`, reconciler.ts). */
function jobOfRef(ref: string): string {
  return ref.split('/').slice(0, -3).join('/');
}

/** Stand-in handle for a recorded worker that no longer exists. */
function goneHandle(process: PersistedProcess): WorkerHandle {
  return {
    ref: process.ref,
    pid: process.pid,
    startTime: process.startTime,
    exitObservable: false,
    signal() {},
    onExit() {},
    poll() {},
    detach() {},
  };
}
