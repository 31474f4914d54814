/**
 * Starts worker processes and watches them. Workers run in their own process group (detached) with
 * stdout/stderr going to files, so they outlive an agent crash or upgrade and can be re-adopted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { DesiredJob, DesiredWorker } from '../../../lib/protocol/desired-state.ts';
import { errorMessage } from '../logger.ts';
import type { WorkerExit } from '../reconciler.ts';
import { isSameProcessAlive, processStartTime } from './process-identity.ts';

export interface LaunchSpec {
  ref: string;
  command: string[];
  env: Record<string, string>;
  /** Working directory of the process (the job's workspace); the agent's own when omitted. */
  cwd?: string;
  /** The job and worker it runs for: launchers that prepare the job's code read them. */
  job?: DesiredJob;
  worker?: DesiredWorker;
  stdoutPath: string;
  stderrPath: string;
}

/** What the agent persists about a worker so a restarted agent can find it again. */
export interface WorkerIdentity {
  ref: string;
  pid: number;
  startTime: string | null;
}

export interface WorkerHandle {
  readonly ref: string;
  /** Null when the process could not be started. */
  readonly pid: number | null;
  readonly startTime: string | null;
  /** Whether the agent can observe the real exit status (false for re-adopted workers). */
  readonly exitObservable: boolean;
  /**
   * SIGUSR2 goes to the worker itself (its helper processes, e.g. data loaders, must not get it);
   * SIGKILL goes to its whole process group so nothing it started survives.
   */
  signal(signal: 'SIGUSR2' | 'SIGKILL'): void;
  /** Called once, when the process is gone. */
  onExit(listener: (exit: WorkerExit) => void): void;
  /** Checks liveness of re-adopted workers (their exit produces no event); no-op for own children. */
  poll(): void;
  /** Stops watching and leaves the process running (the agent is going away without stopping it). */
  detach(): void;
}

export interface WorkerLauncher {
  launch(spec: LaunchSpec): WorkerHandle;
  /** Re-attaches to a worker started by a previous agent; null when that process is gone. */
  adopt(identity: WorkerIdentity): WorkerHandle | null;
}

function sendSignal(pid: number, signal: 'SIGUSR2' | 'SIGKILL'): void {
  try {
    process.kill(signal === 'SIGKILL' ? -pid : pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

class ChildWorker implements WorkerHandle {
  readonly exitObservable = true;
  readonly pid: number | null;
  readonly startTime: string | null;
  private listener: ((exit: WorkerExit) => void) | null = null;
  private exit: WorkerExit | null = null;
  private detached = false;

  constructor(
    readonly ref: string,
    private readonly child: ChildProcess,
  ) {
    this.pid = child.pid ?? null;
    this.startTime = this.pid === null ? null : processStartTime(this.pid);
    child.once('exit', (code, signal) => this.finish({ code, signal }));
    child.on('error', (error) => {
      // 'error' without a pid: the process never started (ENOENT, EACCES…)
      if (this.pid === null) this.finish({ code: null, signal: null, spawnError: errorMessage(error) });
    });
  }

  signal(signal: 'SIGUSR2' | 'SIGKILL'): void {
    if (this.pid !== null && this.exit === null) sendSignal(this.pid, signal);
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.listener = listener;
    if (this.exit) queueMicrotask(() => this.deliver());
  }

  poll(): void {}

  detach(): void {
    this.detached = true;
    this.child.unref();
  }

  private finish(exit: WorkerExit): void {
    if (this.exit) return;
    this.exit = exit;
    this.deliver();
  }

  private deliver(): void {
    const listener = this.listener;
    if (!listener || !this.exit || this.detached) return;
    this.listener = null;
    listener(this.exit);
  }
}

class AdoptedWorker implements WorkerHandle {
  readonly exitObservable = false;
  private listener: ((exit: WorkerExit) => void) | null = null;
  private gone = false;

  constructor(
    readonly ref: string,
    readonly pid: number,
    readonly startTime: string | null,
  ) {}

  signal(signal: 'SIGUSR2' | 'SIGKILL'): void {
    // Re-check identity first: never signal a process that merely inherited the pid.
    if (!this.gone && isSameProcessAlive(this.pid, this.startTime)) sendSignal(this.pid, signal);
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.listener = listener;
  }

  poll(): void {
    if (this.gone || isSameProcessAlive(this.pid, this.startTime)) return;
    this.gone = true;
    const listener = this.listener;
    this.listener = null;
    // Not our child: the exit status is unknowable; the agent infers it from what the worker reported.
    listener?.({ code: null, signal: null });
  }

  detach(): void {
    this.listener = null;
  }
}

export const processLauncher: WorkerLauncher = {
  launch(spec) {
    const [command, ...args] = spec.command;
    if (command === undefined) throw new Error(`worker ${spec.ref}: empty command`);
    const stdout = openSync(spec.stdoutPath, 'a');
    const stderr = openSync(spec.stderrPath, 'a');
    try {
      const child = spawn(command, args, {
        env: spec.env,
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        stdio: ['ignore', stdout, stderr],
        detached: true,
      });
      return new ChildWorker(spec.ref, child);
    } finally {
      closeSync(stdout);
      closeSync(stderr);
    }
  },
  adopt(identity) {
    if (!isSameProcessAlive(identity.pid, identity.startTime)) return null;
    return new AdoptedWorker(identity.ref, identity.pid, identity.startTime);
  },
};
