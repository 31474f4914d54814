import { Random } from '../lib/traces/generators/random.ts';
import type { Trace } from '../lib/traces/types.ts';

/**
 * A Pollux-style workload (Pollux, OSDI '21, §5.1) built from the shared data: jobs sampled from a busy window of the
 * Philly list, each assigned an application by the GPU-hours it used in the trace — Small (< 1 GPU-hour): cifar10 or
 * ncf; Medium (1–10): bert or deepspeech2; Large (10–100): yolov3; XLarge (≥ 100): imagenet — at the application's
 * smallest validated batch size (the artifact's initial batch) and the trace's GPU count. The rows are written in the
 * Pollux/Sia workload format (`name,time,application,num_replicas,batch_size`), so the importer derives each job's
 * work from the application's training curves, as for a real Pollux workload file.
 */
export const POLLUX_CATEGORIES: readonly {
  readonly maxGpuHours: number;
  readonly apps: readonly string[];
}[] = [
  { maxGpuHours: 1, apps: ['cifar10', 'ncf'] },
  { maxGpuHours: 10, apps: ['bert', 'deepspeech2'] },
  { maxGpuHours: 100, apps: ['yolov3'] },
  { maxGpuHours: Number.POSITIVE_INFINITY, apps: ['imagenet'] },
];

/** Smallest validated batch size per application (`validation-<B>.csv` in the shared data). */
export const POLLUX_INITIAL_BATCH: Readonly<Record<string, number>> = {
  cifar10: 128,
  ncf: 256,
  bert: 12,
  deepspeech2: 20,
  yolov3: 8,
  imagenet: 200,
};

export interface PolluxStyleOptions {
  readonly jobs: number;
  readonly seed: number;
  /** Length of the arrival window in seconds (Pollux: the busiest 8 hours). */
  readonly windowSeconds: number;
  /** Largest GPU count a job starts with. */
  readonly maxGpus: number;
}

/** CSV text of a Pollux/Sia workload: `jobs` rows drawn without replacement from the window's jobs with a duration. */
export const polluxStyleCsv = (philly: Trace, o: PolluxStyleOptions): string => {
  const first = Math.min(...philly.jobs.map((j) => j.submitTime));
  const pool = philly.jobs.filter(
    (j) => j.duration !== undefined && j.duration > 0 && j.submitTime < first + o.windowSeconds,
  );
  if (pool.length < o.jobs)
    throw new RangeError(`pollux-style workload: ${pool.length} Philly jobs in the window, ${o.jobs} wanted`);
  const rng = new Random(o.seed, 97);
  const picked = [...pool];
  for (let i = 0; i < o.jobs; i++) {
    const k = rng.int(i, picked.length - 1);
    [picked[i], picked[k]] = [picked[k]!, picked[i]!];
  }
  const rows = picked
    .slice(0, o.jobs)
    .sort((a, b) => a.submitTime - b.submitTime || (a.id < b.id ? -1 : 1))
    .map((j, i) => {
      const gpuHours = (j.gpus * j.duration!) / 3600;
      const category = POLLUX_CATEGORIES.find((c) => gpuHours < c.maxGpuHours)!;
      const app = category.apps[rng.int(0, category.apps.length - 1)]!;
      const replicas = Math.min(o.maxGpus, Math.max(1, j.gpus));
      return `${app}-${i},${Math.round(j.submitTime - first)},${app},${replicas},${POLLUX_INITIAL_BATCH[app]}`;
    });
  return ['name,time,application,num_replicas,batch_size', ...rows].join('\n');
};
