import type { PolicyRun } from '../run.ts';
import type { SimResult } from '../simulator.ts';
import type { ChartSpec, Point, Series } from './chart.ts';
import { bucketSteps, empiricalCdf } from './downsample.ts';
import { seriesStyle } from './palette.ts';
import { linearTicks, logTicks } from './ticks.ts';

/** Turning runs into chart specs: which numbers each plot shows, in which units, and how they are reduced. */

/** At most this many buckets or CDF points per series: about one per pixel of a 960 px wide plot. */
export const MAX_POINTS_PER_SERIES = 800;

const HOUR = 3600;
const DAY = 86_400;

export interface TimeUnit {
  readonly name: 'minutes' | 'hours' | 'days';
  readonly seconds: number;
}

/** Minutes under an hour, hours up to two days, days beyond (a week reads better as 0–7 days than 0–168 h). */
export const timeUnitFor = (spanSeconds: number): TimeUnit =>
  spanSeconds > 2 * DAY
    ? { name: 'days', seconds: DAY }
    : spanSeconds < HOUR
      ? { name: 'minutes', seconds: 60 }
      : { name: 'hours', seconds: HOUR };

/** A plot plus what its caption needs to say about how the data was reduced. */
export interface Plot {
  readonly chart: ChartSpec;
  /** Seconds per time bucket when a timeline was reduced to buckets, else undefined. */
  readonly bucketSeconds?: number;
}

const completedJctHours = (result: SimResult): number[] =>
  result.jobs.flatMap((j) =>
    j.outcome === 'completed' && j.jct !== undefined && Number.isFinite(j.jct) ? [j.jct / HOUR] : [],
  );

/**
 * JCT CDF on a log-scale x axis in hours. The y axis counts every job of the run, so a policy that leaves jobs
 * unfinished ends below 100 % instead of looking as good as one that finishes them all.
 */
export const jctCdfPlot = (runs: readonly PolicyRun[]): Plot => {
  const perRun = runs.map((r) => ({ run: r, jcts: completedJctHours(r.result) }));
  const positive = perRun.flatMap((r) => r.jcts).filter((h) => h > 0);
  const axis = logTicks(
    positive.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY),
    positive.reduce((a, b) => Math.max(a, b), 0),
  );
  const series: Series[] = perRun.map(({ run, jcts }, i) => {
    const cdf = empiricalCdf(jcts, run.result.jobs.length, MAX_POINTS_PER_SERIES);
    const last = cdf[cdf.length - 1];
    const points: Point[] =
      last === undefined
        ? []
        : [
            { x: axis.min, y: 0 },
            ...cdf.map((p) => ({ x: p.x, y: p.y * 100 })),
            { x: axis.max, y: last.y * 100 },
          ];
    return { name: run.summary.policy, style: seriesStyle(i), shape: 'step', points };
  });
  const y = linearTicks(0, 100, 5);
  return {
    chart: {
      title: 'Cumulative distribution of job completion time per policy',
      x: { label: 'Job completion time (hours, log scale)', scale: 'log', ...axis },
      y: { label: 'Jobs completed (% of all jobs)', scale: 'linear', ...y },
      series,
      emptyMessage: 'No job completed under any policy',
    },
  };
};

interface TimelineSpec {
  readonly title: string;
  readonly yLabel: string;
  readonly emptyMessage: string;
  /** The plotted value of a timeline point, or undefined when the run cannot provide it. */
  readonly value: (result: SimResult) => ((p: SimResult['timeline'][number]) => number) | undefined;
  /** Fixed y range (utilisation is 0–100 %); otherwise from the data. */
  readonly yRange?: readonly [number, number];
  /** Also draw each bucket's peak as a faint line (worth it for spiky series such as the queue). */
  readonly showPeaks: boolean;
}

const timelinePlot = (runs: readonly PolicyRun[], spec: TimelineSpec): Plot => {
  const span = runs.reduce(
    (s, r) => Math.max(s, r.result.endTime - r.result.startTime, lastT(r.result) - r.result.startTime),
    0,
  );
  const unit = timeUnitFor(span);
  let bucketSeconds: number | undefined;
  let highest = 0;
  const series: Series[] = runs.map((run, i) => {
    const { result } = run;
    const value = spec.value(result);
    const base = { name: run.summary.policy, style: seriesStyle(i), shape: 'step' as const };
    if (!value || result.timeline.length === 0) return { ...base, points: [] };
    const end = Math.max(result.endTime, lastT(result));
    const steps = result.timeline.map((p) => ({ t: p.t, value: value(p) }));
    const buckets = bucketSteps(steps, end, MAX_POINTS_PER_SERIES);
    const reduced = buckets.length < steps.length;
    if (reduced) bucketSeconds = Math.max(bucketSeconds ?? 0, (end - result.startTime) / buckets.length);
    const x = (t: number) => (t - result.startTime) / unit.seconds;
    const finalBucket = buckets[buckets.length - 1]!;
    const points = [...buckets.map((b) => ({ x: x(b.t), y: b.mean })), { x: x(end), y: finalBucket.mean }];
    const peaks = [...buckets.map((b) => ({ x: x(b.t), y: b.max })), { x: x(end), y: finalBucket.max }];
    const drawnPeaks = spec.showPeaks && reduced;
    for (const p of drawnPeaks ? peaks : points) if (Number.isFinite(p.y)) highest = Math.max(highest, p.y);
    return { ...base, points, ...(drawnPeaks ? { companion: peaks } : {}) };
  });
  const x = linearTicks(0, span / unit.seconds || 1, 8);
  const y = spec.yRange
    ? linearTicks(spec.yRange[0], spec.yRange[1], 5)
    : linearTicks(0, Math.max(1, highest), 5);
  return {
    chart: {
      title: spec.title,
      x: { label: `Time since the first arrival (${unit.name})`, scale: 'linear', ...x },
      y: { label: spec.yLabel, scale: 'linear', ...y },
      series,
      emptyMessage: spec.emptyMessage,
    },
    ...(bucketSeconds !== undefined ? { bucketSeconds } : {}),
  };
};

const lastT = (result: SimResult): number =>
  result.timeline[result.timeline.length - 1]?.t ?? result.startTime;

/** Busy GPUs over total GPUs, in percent. */
export const utilisationPlot = (runs: readonly PolicyRun[]): Plot =>
  timelinePlot(runs, {
    title: 'GPU utilisation over time per policy',
    yLabel: 'GPU utilisation (%)',
    emptyMessage: 'No timeline recorded',
    value: (result) => (result.totalGpus > 0 ? (p) => (100 * p.busyGpus) / result.totalGpus : undefined),
    yRange: [0, 100],
    showPeaks: false,
  });

/** Jobs that have arrived and hold no GPU. */
export const queuePlot = (runs: readonly PolicyRun[]): Plot =>
  timelinePlot(runs, {
    title: 'Queue length over time per policy',
    yLabel: 'Jobs waiting for GPUs',
    emptyMessage: 'No timeline recorded',
    value: () => (p) => p.waitingJobs,
    showPeaks: true,
  });
