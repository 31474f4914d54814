/**
 * Ships each worker's stdout and stderr to the log store as chunks (`jobs/<jobId>/logs/<rank>/<chunk>`): every
 * few seconds or every 256 KiB, whichever comes first, and a final chunk when the worker exits. It runs beside
 * the reconcile loop, never in it: `tick()` starts a pass only when none is in flight and returns at once. A
 * failed upload keeps its lines and is retried with back-off; the offsets on disk advance only after an upload
 * succeeded, so neither a failed upload nor an agent crash loses a line that was read.
 */
import { rmSync } from 'node:fs';
import {
  LOG_CHUNK_VERSION,
  type LogChunk,
  type LogLine,
  type LogStream,
  logChunkKey,
  logChunkName,
} from '../../../lib/protocol/log-chunk.ts';
import type { Clock } from '../clock.ts';
import { errorMessage, type Logger } from '../logger.ts';
import {
  type ChunkLimits,
  DEFAULT_CHUNK_LIMITS,
  lineBytes,
  linesInChunk,
  shouldCut,
} from './chunk-policy.ts';
import { LineReader } from './line-reader.ts';
import { readShippingState, type ShippedRun, writeShippingState } from './shipping-state.ts';

/** Where chunks go (S3 in production and locally through the endpoint). */
export interface LogSink {
  put(key: string, body: string): Promise<void>;
}

export interface LogShipperOptions {
  sink: LogSink;
  hostId: string;
  /** The shipper's state file. */
  statePath: string;
  clock: Clock;
  logger: Logger;
  limits?: ChunkLimits;
  /** Seconds before the first retry of a failed upload; doubles up to `maxRetrySeconds`. */
  retrySeconds?: number;
  maxRetrySeconds?: number;
}

/** What the agent knows about a worker when it starts it. */
export interface RunToShip {
  ref: string;
  jobId: string;
  rank: number;
  jobGeneration: number;
  stdoutPath: string;
  stderrPath: string;
}

interface WaitingLine extends LogLine {
  end: number;
  bytes: number;
}

interface LiveRun {
  state: ShippedRun;
  readers: Record<LogStream, LineReader>;
  waiting: WaitingLine[];
  failures: number;
  retryAt: number;
}

export class LogShipper {
  private readonly runs = new Map<string, LiveRun>();
  private readonly limits: ChunkLimits;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: LogShipperOptions) {
    this.limits = options.limits ?? DEFAULT_CHUNK_LIMITS;
  }

  /** Takes over the runs a previous agent was shipping (at start: an agent object may be built long before). */
  load(): void {
    let restored: ShippedRun[] = [];
    try {
      restored = readShippingState(this.options.statePath);
    } catch (error) {
      this.options.logger.error('log shipping state unreadable; starting without it', {
        error: errorMessage(error),
      });
    }
    for (const state of restored) if (!this.runs.has(state.ref)) this.runs.set(state.ref, live(state));
    if (restored.length > 0) this.options.logger.info('resuming log shipping', { runs: restored.length });
  }

  /** Refs of the runs not yet fully shipped. */
  refs(): string[] {
    return [...this.runs.keys()];
  }

  /** Output files of the job's runs still being shipped (the agent must not delete them yet). */
  unshippedPaths(jobId: string): Set<string> {
    const paths = new Set<string>();
    for (const { state } of this.runs.values())
      if (state.jobId === jobId) for (const path of [state.stdoutPath, state.stderrPath]) paths.add(path);
    return paths;
  }

  track(run: RunToShip): void {
    if (this.runs.has(run.ref)) return;
    const state: ShippedRun = {
      ...run,
      runStart: this.now(),
      offsets: { stdout: 0, stderr: 0 },
      nextSeq: 0,
      uploading: null,
      exited: false,
      deleteWhenShipped: false,
    };
    this.runs.set(run.ref, live(state));
    this.persist();
  }

  /** The worker is gone: its remaining output, partial last lines included, goes out in a final chunk. */
  exited(ref: string): void {
    const run = this.runs.get(ref);
    if (!run || run.state.exited) return;
    run.state.exited = true;
    run.retryAt = 0;
    this.persist();
    this.tick();
  }

  /** Runs whose worker the agent no longer watches (it exited while no agent was running): treat as exited. */
  exitedUnless(watched: ReadonlySet<string>): void {
    for (const ref of this.runs.keys()) if (!watched.has(ref)) this.exited(ref);
  }

  /** The job is released: its runs' files are deleted once shipped. */
  release(jobId: string): void {
    for (const run of this.runs.values()) if (run.state.jobId === jobId) run.state.deleteWhenShipped = true;
    this.persist();
  }

  /** Starts a shipping pass unless one is running; never waits for it. */
  tick(): void {
    if (this.inFlight || this.stopped) return;
    this.inFlight = this.pass()
      .catch((error) => this.options.logger.error('log shipping pass failed', { error: errorMessage(error) }))
      .finally(() => {
        this.inFlight = null;
      });
  }

  /** Resolves when no pass is in flight. */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** Ships everything of exited runs and what running ones wrote so far, within `timeoutSeconds`; true when done. */
  async flush(timeoutSeconds: number): Promise<boolean> {
    const deadline = this.now() + timeoutSeconds;
    for (const run of this.runs.values()) run.retryAt = 0;
    while (this.now() < deadline) {
      while (this.inFlight) await this.inFlight;
      await this.runPass(true);
      const pending = [...this.runs.values()].some((run) => run.state.exited || run.waiting.length > 0);
      if (!pending) return true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return false;
  }

  /** Stops shipping (the agent is going away); what is not shipped stays on disk for the next agent. */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.inFlight) await this.inFlight;
  }

  private async pass(): Promise<void> {
    await this.runPass(false);
  }

  private async runPass(flushAll: boolean): Promise<void> {
    const now = this.now();
    const due = [...this.runs.values()].filter((run) => run.retryAt <= now);
    await Promise.all(due.map((run) => this.ship(run, flushAll)));
  }

  /** Reads what the run wrote and uploads the chunks that are due, in order; stops at the first failure. */
  private async ship(run: LiveRun, flushAll: boolean): Promise<void> {
    const exited = run.state.exited;
    for (;;) {
      // An exited run is drained when a read finds nothing more: its last chunk is then the final one.
      const drained = this.read(run, exited) === 0 && exited;
      const lines = this.nextChunk(run, exited || flushAll);
      if (lines === null || (!drained && lines.length === 0)) return;
      const final = drained && lines.length === run.waiting.length;
      if (!(await this.upload(run, lines, final))) return;
      if (final) {
        this.finish(run);
        return;
      }
      if (!exited && run.waiting.length === 0) return;
    }
  }

  /** The lines of the next chunk if one is due: a chunk whose upload may have happened again as it was, else a new one. */
  private nextChunk(run: LiveRun, now: boolean): WaitingLine[] | null {
    const uploading = run.state.uploading;
    if (uploading) return run.waiting.filter((line) => line.end <= uploading[line.stream]);
    const sizes = run.waiting.map((line) => line.bytes);
    const due = now || shouldCut({ sizes, oldestAt: run.waiting[0]?.at ?? null }, this.now(), this.limits);
    return due ? run.waiting.slice(0, linesInChunk(sizes, this.limits)) : null;
  }

  /** Appends newly written lines to the run's waiting lines; returns how many. */
  private read(run: LiveRun, final: boolean): number {
    const at = this.now();
    let added = 0;
    for (const stream of ['stdout', 'stderr'] as const) {
      try {
        for (const line of run.readers[stream].read(final)) {
          run.waiting.push({ at, stream, text: line.text, end: line.end, bytes: lineBytes(line.text) });
          added++;
        }
      } catch (error) {
        this.options.logger.warn('could not read worker output', {
          ref: run.state.ref,
          stream,
          error: errorMessage(error),
        });
      }
    }
    return added;
  }

  private async upload(run: LiveRun, lines: WaitingLine[], final: boolean): Promise<boolean> {
    const state = run.state;
    const ends = { ...state.offsets };
    for (const line of lines) ends[line.stream] = line.end;
    if (!state.uploading) {
      state.uploading = ends;
      this.persist(); // before the upload: see ShippedRun.uploading
    }
    const chunk: LogChunk = {
      version: LOG_CHUNK_VERSION,
      jobId: state.jobId,
      rank: state.rank,
      jobGeneration: state.jobGeneration,
      hostId: this.options.hostId,
      seq: state.nextSeq,
      final,
      lines: lines.map(({ at, stream, text }) => ({ at, stream, text })),
    };
    const key = logChunkKey(state.jobId, state.rank, logChunkName(state.runStart, state.nextSeq));
    try {
      await this.options.sink.put(key, JSON.stringify(chunk));
    } catch (error) {
      run.failures++;
      const retry = this.options.retrySeconds ?? 1;
      const delay = Math.min(retry * 2 ** (run.failures - 1), this.options.maxRetrySeconds ?? 60);
      run.retryAt = this.now() + delay;
      this.options.logger.warn('log upload failed; will retry', {
        ref: state.ref,
        key,
        retryInSeconds: delay,
        error: errorMessage(error),
      });
      return false;
    }
    run.failures = 0;
    run.retryAt = 0;
    state.offsets = ends;
    state.uploading = null;
    state.nextSeq++;
    const shipped = new Set(lines);
    run.waiting = run.waiting.filter((line) => !shipped.has(line));
    this.persist();
    return true;
  }

  private finish(run: LiveRun): void {
    this.runs.delete(run.state.ref);
    if (run.state.deleteWhenShipped)
      for (const path of [run.state.stdoutPath, run.state.stderrPath]) rmSync(path, { force: true });
    this.persist();
  }

  private persist(): void {
    try {
      writeShippingState(
        this.options.statePath,
        [...this.runs.values()].map((run) => run.state),
      );
    } catch (error) {
      this.options.logger.error('could not write the log shipping state', { error: errorMessage(error) });
    }
  }

  private now(): number {
    return this.options.clock.now() / 1000;
  }
}

function live(state: ShippedRun): LiveRun {
  return {
    state,
    readers: {
      stdout: new LineReader(state.stdoutPath, state.offsets.stdout),
      stderr: new LineReader(state.stderrPath, state.offsets.stderr),
    },
    waiting: [],
    failures: 0,
    retryAt: 0,
  };
}
