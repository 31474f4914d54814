import type { JobRecord, RunningRate } from '../lib/sim/simulator.ts';

/**
 * Cluster throughput over a simulation, as the Crius paper plots it (the sum of all jobs' throughput), with each
 * job's throughput normalised by its throughput on the allocation it asked for — so a job running as requested
 * counts 1 whatever its model, and a cluster value of 300 means "the work of 300 jobs on their requested GPUs".
 * Fed by the simulator's `onRates` observer; every completion triggers a round, so a segment of constant rates
 * always ends at the next observation (or at the job's finish after the last one). Restart pauses count zero.
 */
export class ThroughputMeter {
  private previous: readonly RunningRate[] = [];
  private previousTime = 0;
  private first: number | undefined;
  private readonly bins = new Map<number, number>();

  constructor(
    /** Iterations per second of each job on its requested allocation. */
    private readonly reference: ReadonlyMap<string, number>,
    private readonly binSeconds = 3_600,
  ) {}

  readonly onRates = (now: number, running: readonly RunningRate[]): void => {
    this.close(this.previous, this.previousTime, () => now);
    this.first ??= now;
    this.previous = running;
    this.previousTime = now;
  };

  /**
   * Average normalised throughput over `window` (the trace's arrival period: the paper plots throughput while
   * jobs arrive; the drain afterwards is set by the longest job alone), and the peak (best full bin) of the run.
   */
  finish(
    records: readonly JobRecord[],
    window: { readonly start: number; readonly end: number },
  ): { avgThroughput: number; peakThroughput: number } {
    const finishes = new Map(records.map((r) => [r.id, r.finishTime]));
    this.close(this.previous, this.previousTime, (id) => finishes.get(id) ?? this.previousTime);
    this.previous = [];
    const end = Math.max(this.previousTime, ...records.map((r) => r.finishTime ?? 0));
    let inWindow = 0;
    for (const [bin, work] of this.bins) {
      const from = Math.max(bin * this.binSeconds, window.start);
      const to = Math.min((bin + 1) * this.binSeconds, window.end);
      if (to > from) inWindow += (work * (to - from)) / this.binSeconds;
    }
    const span = window.end - window.start;
    let peak = 0;
    for (const [bin, work] of this.bins) {
      const from = Math.max(bin * this.binSeconds, this.first ?? 0);
      const to = Math.min((bin + 1) * this.binSeconds, end);
      if (to - from >= this.binSeconds / 2) peak = Math.max(peak, work / (to - from));
    }
    return { avgThroughput: span > 0 ? inWindow / span : 0, peakThroughput: peak };
  }

  private close(running: readonly RunningRate[], from: number, until: (jobId: string) => number): void {
    for (const r of running) {
      const ref = this.reference.get(r.jobId);
      if (!ref || !(r.rate > 0)) continue;
      const start = Math.max(from, r.pausedUntil);
      const end = until(r.jobId);
      if (end <= start) continue;
      this.add(start, end, r.rate / ref);
    }
  }

  /** Adds `speed` × time over [start, end), split across bins. */
  private add(start: number, end: number, speed: number): void {
    for (let t = start; t < end; ) {
      const bin = Math.floor(t / this.binSeconds);
      const stop = Math.min(end, (bin + 1) * this.binSeconds);
      this.bins.set(bin, (this.bins.get(bin) ?? 0) + speed * (stop - t));
      t = stop;
    }
  }
}
