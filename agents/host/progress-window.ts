/**
 * Turns per-worker progress report lines into one progress message per job: one fresh report from
 * every running worker of the job on this host, at most once per interval.
 */
export interface WorkerProgress {
  step: number;
  stepTime: number;
  samplesPerSecond: number;
}

export interface JobProgress {
  /** The slowest worker's step: every worker has completed at least this many global steps. */
  step: number;
  /** Mean seconds per iteration over the workers. */
  stepTime: number;
  /** Sum over the workers: each reports the samples it processed itself. */
  samplesPerSecond: number;
}

export class ProgressWindow {
  private readonly latest = new Map<number, WorkerProgress>();
  private lastEmittedAt: number | null = null;

  constructor(private readonly intervalMs: number) {}

  /** Records a worker's report; returns the job's progress when it is time to send it. */
  record(
    localRank: number,
    progress: WorkerProgress,
    runningLocalRanks: readonly number[],
    now: number,
  ): JobProgress | null {
    this.latest.set(localRank, progress);
    if (this.lastEmittedAt !== null && now - this.lastEmittedAt < this.intervalMs) return null;
    const reports = runningLocalRanks.map((rank) => this.latest.get(rank));
    if (reports.length === 0 || reports.some((report) => report === undefined)) return null;
    const fresh = reports as WorkerProgress[];
    this.latest.clear();
    this.lastEmittedAt = now;
    return {
      step: Math.min(...fresh.map((report) => report.step)),
      stepTime: fresh.reduce((sum, report) => sum + report.stepTime, 0) / fresh.length,
      samplesPerSecond: fresh.reduce((sum, report) => sum + report.samplesPerSecond, 0),
    };
  }
}
