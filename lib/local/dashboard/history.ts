/**
 * The cluster-snapshot series behind the dashboard's utilisation, queue and cost charts: the dashboard server samples
 * `GET /cluster` every few seconds and keeps the last `capacity` points in memory.
 */
import { getInstanceOffering } from '../../core/catalog/instances.ts';

/** What the API's `GET /cluster` returns (the fields read here). */
export interface ClusterView {
  readonly round: number;
  readonly hosts: readonly {
    readonly hostId: string;
    readonly state: string;
    readonly instanceType?: string;
    readonly gpus: number;
    readonly busyGpus: number;
  }[];
  readonly gpus: number;
  readonly busyGpus: number;
  readonly jobs: Readonly<Record<string, number>>;
}

export interface Snapshot {
  /** Epoch seconds. */
  readonly t: number;
  readonly gpus: number;
  readonly busyGpus: number;
  /** Busy share of the active GPUs, 0..1. */
  readonly utilisation: number;
  /** Jobs waiting (queued or suspended). */
  readonly queued: number;
  readonly running: number;
  /** On-demand list price of the live instances. */
  readonly dollarsPerHour: number;
  /** Dollars spent since the series began (the rate integrated between samples). */
  readonly dollars: number;
}

const priceOf = (instanceType: string | undefined): number => {
  if (!instanceType) return 0;
  try {
    return getInstanceOffering(instanceType).onDemandPerHour;
  } catch {
    return 0; // not in the catalog: shown as unpriced (0) rather than guessed
  }
};

export const snapshotOf = (t: number, view: ClusterView, previous?: Snapshot): Snapshot => {
  const dollarsPerHour = view.hosts
    .filter((h) => h.state !== 'lost')
    .reduce((sum, h) => sum + priceOf(h.instanceType), 0);
  const elapsed = previous ? Math.max(0, t - previous.t) : 0;
  return {
    t,
    gpus: view.gpus,
    busyGpus: view.busyGpus,
    utilisation: view.gpus > 0 ? Math.min(1, view.busyGpus / view.gpus) : 0,
    queued: (view.jobs.queued ?? 0) + (view.jobs.suspended ?? 0),
    running: (view.jobs.running ?? 0) + (view.jobs.checkpointing ?? 0),
    dollarsPerHour,
    dollars: (previous?.dollars ?? 0) + ((previous?.dollarsPerHour ?? 0) * elapsed) / 3600,
  };
};

export class SnapshotSeries {
  private readonly points: Snapshot[] = [];
  constructor(private readonly capacity = 2880) {}

  add(t: number, view: ClusterView): Snapshot {
    const point = snapshotOf(t, view, this.points.at(-1));
    this.points.push(point);
    if (this.points.length > this.capacity) this.points.splice(0, this.points.length - this.capacity);
    return point;
  }

  all(): readonly Snapshot[] {
    return this.points;
  }
}
