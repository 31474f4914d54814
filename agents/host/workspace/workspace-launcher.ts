/**
 * Starts the workers of jobs that bring their own code (`workdir`, `image`, `setup`): the worker's handle exists
 * at once, as the reconciler expects, while the job's workspace is prepared (download, extract, setup); then the
 * command starts in it — directly, or through the container runtime when the job names an image. A stop or kill
 * that arrives before the command started ends the worker without starting it.
 */
import { spawn } from 'node:child_process';
import type { DesiredJob, DesiredWorker } from '../../../lib/protocol/desired-state.ts';
import { EXIT_CHECKPOINTED, MANAGED_ENV_NAMES } from '../../../lib/protocol/worker-protocol.ts';
import { errorMessage } from '../logger.ts';
import type { LaunchSpec, WorkerHandle, WorkerLauncher } from '../process/worker-launcher.ts';
import type { WorkerExit } from '../reconciler.ts';
import {
  checkpointMounts,
  containerName,
  containerRemoveArgs,
  containerRunArgs,
} from './container-command.ts';
import type { JobWorkspaces } from './job-workspaces.ts';

export const usesWorkspace = (job: DesiredJob): boolean =>
  job.workdir !== undefined || job.image !== undefined || job.setup !== undefined;

export class WorkspaceLauncher {
  constructor(
    private readonly workspaces: JobWorkspaces,
    private readonly containerRuntime: string,
  ) {}

  /** A launcher that starts jobs with code through their workspace and every other job through `base`. */
  around(base: WorkerLauncher): WorkerLauncher {
    return {
      launch: (spec) =>
        spec.job && spec.worker && usesWorkspace(spec.job)
          ? this.launch(spec, spec.job, spec.worker, base)
          : base.launch(spec),
      adopt: (identity) => base.adopt(identity),
    };
  }

  launch(spec: LaunchSpec, job: DesiredJob, worker: DesiredWorker, base: WorkerLauncher): WorkerHandle {
    const name = containerName(spec.ref);
    const ready = this.workspaces
      .prepare(job, spec.env)
      .then((dir) => (job.image ? this.inContainer(spec, job, worker, dir, name) : { ...spec, cwd: dir }));
    const removeContainer = job.image ? () => this.removeContainer(name) : null;
    return new PreparingWorker(spec.ref, ready, (final) => base.launch(final), removeContainer);
  }

  release(jobId: string): void {
    this.workspaces.release(jobId);
  }

  private inContainer(
    spec: LaunchSpec,
    job: DesiredJob,
    worker: DesiredWorker,
    dir: string,
    name: string,
  ): LaunchSpec {
    const managed = new Set<string>(MANAGED_ENV_NAMES);
    const envNames = Object.keys(spec.env).filter((n) => managed.has(n) || n in (job.env ?? {}));
    const args = containerRunArgs({
      runtime: this.containerRuntime,
      image: job.image!,
      name,
      hostDir: dir,
      gpuIndices: worker.gpuIndices,
      envNames,
      mounts: checkpointMounts(spec.env),
      command: spec.command,
    });
    return { ...spec, command: [this.containerRuntime, ...args], cwd: dir };
  }

  private removeContainer(name: string): void {
    const child = spawn(this.containerRuntime, containerRemoveArgs(name), {
      stdio: 'ignore',
      detached: true,
    });
    child.once('error', () => {}); // best effort: the worker is being killed anyway
    child.unref();
  }
}

/** A worker whose command starts once its workspace is ready. */
class PreparingWorker implements WorkerHandle {
  readonly exitObservable = true;
  private started: WorkerHandle | null = null;
  private ended: WorkerExit | null = null;
  private listener: ((exit: WorkerExit) => void) | null = null;
  private detached = false;

  constructor(
    readonly ref: string,
    ready: Promise<LaunchSpec>,
    start: (spec: LaunchSpec) => WorkerHandle,
    private readonly onKill: (() => void) | null,
  ) {
    ready.then(
      (spec) => {
        if (this.ended || this.detached) return;
        try {
          this.started = start(spec);
        } catch (error) {
          this.end({ code: null, signal: null, spawnError: errorMessage(error) });
          return;
        }
        this.started.onExit((exit) => this.end(exit));
      },
      (error) => this.end({ code: null, signal: null, spawnError: errorMessage(error) }),
    );
  }

  get pid(): number | null {
    return this.started?.pid ?? null;
  }

  get startTime(): string | null {
    return this.started?.startTime ?? null;
  }

  signal(signal: 'SIGUSR2' | 'SIGKILL'): void {
    if (this.ended) return;
    if (this.started) {
      this.started.signal(signal);
      if (signal === 'SIGKILL') this.onKill?.();
      return;
    }
    // Not started yet: nothing to checkpoint (its resume step stays the newest complete checkpoint) or kill.
    this.end(
      signal === 'SIGKILL' ? { code: null, signal: 'SIGKILL' } : { code: EXIT_CHECKPOINTED, signal: null },
    );
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.listener = listener;
    if (this.ended) this.deliver();
  }

  poll(): void {
    this.started?.poll();
  }

  detach(): void {
    this.detached = true;
    this.listener = null;
    this.started?.detach();
  }

  private end(exit: WorkerExit): void {
    if (this.ended) return;
    this.ended = exit;
    this.deliver();
  }

  private deliver(): void {
    // Never from inside the caller's own call (e.g. a signal effect the reconciler is still producing).
    queueMicrotask(() => {
      const listener = this.listener;
      if (!listener || !this.ended || this.detached) return;
      this.listener = null;
      listener(this.ended);
    });
  }
}
