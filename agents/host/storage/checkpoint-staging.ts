/**
 * Stages S3 checkpoints through a local directory, so trainers only ever see `file://`:
 *  - a job whose checkpoint URI is `s3://bucket/jobs/<jobId>/checkpoints` gets the local directory
 *    `<stateDir>/checkpoints/<bucket>/jobs/<jobId>/checkpoints` (the mapping is a pure function of the URI, so a
 *    restarted agent maps the report lines of re-adopted workers back to S3);
 *  - before a worker starts, its resume step is downloaded unless a complete copy is already local;
 *  - each complete step the trainer reports is uploaded (COMPLETE last); only then is it confirmed to the
 *    reconciler, so every checkpoint step the control plane hears of exists in S3; older local steps are removed;
 *  - `newestComplete` answers from a cache (S3 listings refreshed in the background, plus our own uploads):
 *    the reconcile loop never waits on the network.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type CheckpointCatalog, localCheckpointCatalog } from '../checkpoint-catalog.ts';
import { errorMessage, type Logger, silentLogger } from '../logger.ts';
import {
  COMPLETE_MARKER,
  type S3CheckpointStore,
  stepDirName,
  type TransferStats,
} from './s3-checkpoint-store.ts';
import { formatS3Uri, isS3Uri, parseS3Uri } from './s3-uri.ts';

export interface CheckpointStagingOptions {
  store: S3CheckpointStore;
  /** The agent's state directory; staged checkpoints live under `<stateDir>/checkpoints`. */
  stateDir: string;
  logger?: Logger;
  /** How long an S3 listing is trusted before the next `newestComplete` refreshes it. */
  listingTtlMs?: number;
  /** Attempts per upload or download before giving up (with 1 s, 2 s, … between them). */
  attempts?: number;
  retryDelayMs?: number;
  now?: () => number;
}

/** A step the trainer reported, in terms of S3. */
export interface StagedStep {
  rootUri: string;
  step: number;
  /** `s3://…/step-<S>`: what the checkpoint is reported as. */
  stepUri: string;
}

const STEP_DIR = /^step-(\d+)$/;

export class CheckpointStaging {
  readonly root: string;
  private readonly store: S3CheckpointStore;
  private readonly logger: Logger;
  private readonly ttlMs: number;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly now: () => number;
  private readonly listed = new Map<string, { step: number | null; at: number }>();
  private readonly listing = new Map<string, Promise<void>>();
  private readonly uploaded = new Map<string, number>();
  private readonly uploads = new Map<string, Promise<unknown>>();
  private readonly downloads = new Map<string, Promise<void>>();
  private readonly rootsOfJob = new Map<string, Set<string>>();

  constructor(options: CheckpointStagingOptions) {
    this.store = options.store;
    this.root = join(options.stateDir, 'checkpoints');
    this.logger = options.logger ?? silentLogger;
    this.ttlMs = options.listingTtlMs ?? 10_000;
    this.attempts = options.attempts ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.now = options.now ?? Date.now;
  }

  /** The local directory an S3 checkpoint root is staged in. */
  localDir(rootUri: string): string {
    const { bucket, prefix } = parseS3Uri(rootUri);
    return join(this.root, bucket, ...prefix.split('/').filter((part) => part !== ''));
  }

  /** The `file://` URI the trainer is given instead of `rootUri`. */
  localUri(rootUri: string): string {
    return pathToFileURL(this.localDir(rootUri)).href;
  }

  /** The S3 step behind a trainer's `file://…/step-<S>` report URI, or undefined when it is not staged. */
  stagedStep(reportUri: string): StagedStep | undefined {
    if (!reportUri.startsWith('file://')) return undefined;
    let path: string;
    try {
      path = fileURLToPath(reportUri.replace(/\/+$/, ''));
    } catch {
      return undefined;
    }
    const parts = relative(this.root, path).split(sep);
    const match = STEP_DIR.exec(parts.at(-1) ?? '');
    if (!match || parts.length < 2 || parts[0] === '..' || parts[0] === '') return undefined;
    const rootUri = formatS3Uri({ bucket: parts[0]!, prefix: parts.slice(1, -1).join('/') });
    const step = Number(match[1]);
    return { rootUri, step, stepUri: `${rootUri}/${stepDirName(step)}` };
  }

  /** Remembers which job a staged root belongs to, so `release` can clean it. */
  register(jobId: string, rootUri: string): void {
    const roots = this.rootsOfJob.get(jobId) ?? new Set();
    roots.add(rootUri);
    this.rootsOfJob.set(jobId, roots);
  }

  /** Makes the complete step `step` of `rootUri` available locally (no-op for a fresh start or a local copy). */
  prepare(rootUri: string, step: number): Promise<void> {
    if (step < 0) return Promise.resolve();
    const dir = join(this.localDir(rootUri), stepDirName(step));
    if (existsSync(join(dir, COMPLETE_MARKER))) return Promise.resolve();
    const key = `${rootUri}#${step}`;
    let pending = this.downloads.get(key);
    if (!pending) {
      const started = this.now();
      pending = this.retried(`download ${rootUri}/${stepDirName(step)}`, () =>
        this.store.download(rootUri, step, dir),
      ).then((stats) =>
        this.logTransfer('checkpoint downloaded', `${rootUri}/${stepDirName(step)}`, stats, started),
      );
      const forget = () => this.downloads.delete(key);
      pending.then(forget, forget);
      this.downloads.set(key, pending);
    }
    return pending;
  }

  /**
   * Uploads a step the trainer completed; resolves true once it is in S3 (uploads of one root run one after the
   * other, in report order), false when every attempt failed: the step is then not confirmed.
   */
  upload(staged: StagedStep): Promise<boolean> {
    const previous = this.uploads.get(staged.rootUri) ?? Promise.resolve();
    const next = previous.then(() => this.uploadNow(staged));
    const tail = next.catch(() => false);
    this.uploads.set(staged.rootUri, tail);
    void tail.then(() => {
      if (this.uploads.get(staged.rootUri) === tail) this.uploads.delete(staged.rootUri);
    });
    return next;
  }

  /** Newest step complete in S3 as far as known now; refreshes the listing in the background when stale. */
  newestComplete(rootUri: string): number | null {
    const cached = this.listed.get(rootUri);
    if (!cached || this.now() - cached.at > this.ttlMs) this.refresh(rootUri);
    const ours = this.uploaded.get(rootUri) ?? null;
    const listed = cached?.step ?? null;
    if (ours === null) return listed;
    return listed === null ? ours : Math.max(ours, listed);
  }

  /** Resolves once the listing of `rootUri` has been refreshed (for tests and tools). */
  async refreshed(rootUri: string): Promise<number | null> {
    this.refresh(rootUri);
    await this.listing.get(rootUri);
    return this.newestComplete(rootUri);
  }

  /** A catalog for the reconciler: S3 roots from here, file:// roots listed on disk. */
  get catalog(): CheckpointCatalog {
    return {
      newestComplete: (uri) =>
        isS3Uri(uri) ? this.newestComplete(uri) : localCheckpointCatalog.newestComplete(uri),
    };
  }

  /** The job is gone from this host: once its uploads are done, remove its staged directories. */
  release(jobId: string): void {
    const roots = this.rootsOfJob.get(jobId);
    if (!roots) return;
    this.rootsOfJob.delete(jobId);
    for (const rootUri of roots) {
      const pending = this.uploads.get(rootUri) ?? Promise.resolve();
      void pending.then(() => {
        if (this.rootsOfJob.get(jobId)?.has(rootUri)) return; // placed here again meanwhile
        rmSync(this.localDir(rootUri), { recursive: true, force: true });
      });
    }
  }

  private async uploadNow(staged: StagedStep): Promise<boolean> {
    const dir = this.localDir(staged.rootUri);
    const started = this.now();
    try {
      const stats = await this.retried(`upload ${staged.stepUri}`, () =>
        this.store.upload(staged.rootUri, staged.step, join(dir, stepDirName(staged.step))),
      );
      this.logTransfer('checkpoint uploaded', staged.stepUri, stats, started);
    } catch (error) {
      this.logger.error('checkpoint upload failed; the step stays unconfirmed', {
        uri: staged.stepUri,
        error: errorMessage(error),
      });
      return false;
    }
    const before = this.uploaded.get(staged.rootUri) ?? -1;
    if (staged.step > before) this.uploaded.set(staged.rootUri, staged.step);
    this.removeOlderSteps(dir, Math.max(staged.step, before));
    return true;
  }

  /** Local steps older than the newest uploaded one are never resumed from again on this host. */
  private removeOlderSteps(dir: string, newest: number): void {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const match = STEP_DIR.exec(entry);
      if (match && Number(match[1]) < newest) rmSync(join(dir, entry), { recursive: true, force: true });
    }
  }

  private refresh(rootUri: string): void {
    if (this.listing.has(rootUri)) return;
    const pending = this.store
      .newestComplete(rootUri)
      .then(
        (step) => {
          this.listed.set(rootUri, { step, at: this.now() });
        },
        (error) => {
          // Keep the last known value; try again after the TTL.
          const previous = this.listed.get(rootUri);
          this.listed.set(rootUri, { step: previous?.step ?? null, at: this.now() });
          this.logger.warn('could not list checkpoints in S3', { uri: rootUri, error: errorMessage(error) });
        },
      )
      .finally(() => this.listing.delete(rootUri));
    this.listing.set(rootUri, pending);
  }

  private async retried<T>(what: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= this.attempts) throw error;
        this.logger.warn(`${what} failed; retrying`, { attempt, error: errorMessage(error) });
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs * attempt));
      }
    }
  }

  private logTransfer(message: string, uri: string, stats: TransferStats, started: number): void {
    this.logger.info(message, { uri, ...stats, seconds: (this.now() - started) / 1000 });
  }
}
