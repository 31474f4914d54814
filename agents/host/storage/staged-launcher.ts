/**
 * A worker launcher for jobs whose checkpoints live in S3: the worker is given the staged local directory
 * instead of the s3:// URI, and starts only once its resume step is on local disk. Until then its handle
 * stands for a worker that is starting: a kill cancels the start and is reported as the worker's exit, so the
 * reconciler's view (the worker runs from `spawn` on) holds however long the download takes.
 */
import { errorMessage, type Logger } from '../logger.ts';
import type { WorkerHandle, WorkerLauncher } from '../process/worker-launcher.ts';
import type { WorkerExit } from '../reconciler.ts';
import type { CheckpointStaging } from './checkpoint-staging.ts';
import { isS3Uri } from './s3-uri.ts';

export function stagedLauncher(
  base: WorkerLauncher,
  staging: CheckpointStaging,
  logger: Logger,
): WorkerLauncher {
  return {
    launch(spec) {
      const rootUri = spec.env.TESSERA_CHECKPOINT_URI ?? '';
      if (!isS3Uri(rootUri)) return base.launch(spec);
      const jobId = spec.env.TESSERA_JOB_ID;
      if (jobId) staging.register(jobId, rootUri);
      const local = { ...spec, env: { ...spec.env, TESSERA_CHECKPOINT_URI: staging.localUri(rootUri) } };
      const resumeStep = Number(spec.env.TESSERA_RESUME_STEP ?? -1);
      return new StagedWorker(
        spec.ref,
        staging.prepare(rootUri, resumeStep),
        () => base.launch(local),
        logger,
      );
    },
    adopt: (identity) => base.adopt(identity),
  };
}

class StagedWorker implements WorkerHandle {
  readonly exitObservable = true;
  private inner: WorkerHandle | null = null;
  private listener: ((exit: WorkerExit) => void) | null = null;
  private exit: WorkerExit | null = null;
  private cancelled: WorkerExit | null = null;

  constructor(
    readonly ref: string,
    staged: Promise<void>,
    start: () => WorkerHandle,
    private readonly logger: Logger,
  ) {
    staged.then(
      () => {
        if (this.cancelled) return this.finish(this.cancelled);
        try {
          this.inner = start();
        } catch (error) {
          return this.finish({ code: null, signal: null, spawnError: errorMessage(error) });
        }
        this.inner.onExit((exit) => this.finish(exit));
      },
      (error) => {
        // Reported as a crash: the reconciler backs off and starts it again, which retries the download.
        this.logger.error('resume checkpoint could not be staged', { ref, error: errorMessage(error) });
        this.finish({ code: null, signal: null });
      },
    );
  }

  get pid(): number | null {
    return this.inner?.pid ?? null;
  }

  get startTime(): string | null {
    return this.inner?.startTime ?? null;
  }

  signal(signal: 'SIGUSR2' | 'SIGKILL'): void {
    if (this.inner) this.inner.signal(signal);
    else this.cancelled ??= { code: null, signal };
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.listener = listener;
    if (this.exit) listener(this.exit);
  }

  poll(): void {
    this.inner?.poll();
  }

  detach(): void {
    if (this.inner) this.inner.detach();
    else this.cancelled ??= { code: null, signal: null };
    this.listener = null;
  }

  private finish(exit: WorkerExit): void {
    if (this.exit) return;
    this.exit = exit;
    this.listener?.(exit);
  }
}
