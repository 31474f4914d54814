import type { GpuTypeId } from '../model/gpu.ts';
import { FitIndex } from './fit-index.ts';
import { MinHeap } from './min-heap.ts';

/** GPUs a planned job holds per type, and when it is expected to let them go (Infinity = not before the horizon). */
export interface Holder {
  readonly gpus: ReadonlyMap<GpuTypeId, number>;
  readonly finishAt: number;
}

/** A waiting job, in queue order: per usable GPU type, the GPUs it needs there and how long it would then run. */
export interface Waiter {
  readonly jobId: string;
  readonly options: ReadonlyMap<GpuTypeId, { readonly gpus: number; readonly seconds: number }>;
}

/**
 * When each waiting job is expected to start: GPUs are freed as the planned jobs finish (earliest first), and at each
 * moment the first waiting job in queue order that fits on a type it can use starts there, holding its GPUs for its
 * own estimated run time. Jobs that never fit (more GPUs than a type will ever have free) get no estimate.
 *
 * This is a backfilling list schedule: it assumes the policy keeps its current order and lets a job that fits start
 * past one that does not. O((holders + waiters) · types · log n).
 */
export const estimateStarts = (
  now: number,
  free: ReadonlyMap<GpuTypeId, number>,
  holders: readonly Holder[],
  waiters: readonly Waiter[],
): Map<string, number> => {
  const available = new Map(free);
  const types = new Set<GpuTypeId>(available.keys());
  for (const w of waiters) for (const t of w.options.keys()) types.add(t);
  const releases = new MinHeap<ReadonlyMap<GpuTypeId, number>>();
  for (const h of holders) if (Number.isFinite(h.finishAt)) releases.push(Math.max(now, h.finishAt), h.gpus);

  const index = new Map<GpuTypeId, FitIndex>();
  for (const type of types)
    index.set(type, new FitIndex(waiters.map((w) => w.options.get(type)?.gpus ?? Number.POSITIVE_INFINITY)));

  const starts = new Map<string, number>();
  let t = now;
  while (starts.size < waiters.length) {
    const next = firstFitting(index, available, waiters);
    if (next) {
      const waiter = waiters[next.position]!;
      const option = waiter.options.get(next.type)!;
      starts.set(waiter.jobId, t);
      for (const fit of index.values()) fit.remove(next.position);
      available.set(next.type, (available.get(next.type) ?? 0) - option.gpus);
      if (Number.isFinite(option.seconds))
        releases.push(t + option.seconds, new Map([[next.type, option.gpus]]));
      continue;
    }
    const release = releases.pop();
    if (!release) break;
    t = release.key;
    for (const [type, gpus] of release.value) available.set(type, (available.get(type) ?? 0) + gpus);
  }
  return starts;
};

/** The earliest queue position that fits now on any type; when it fits on several, the type it runs fastest on. */
const firstFitting = (
  index: ReadonlyMap<GpuTypeId, FitIndex>,
  available: ReadonlyMap<GpuTypeId, number>,
  waiters: readonly Waiter[],
): { position: number; type: GpuTypeId } | undefined => {
  let best: { position: number; type: GpuTypeId; seconds: number } | undefined;
  for (const [type, fit] of index) {
    const position = fit.firstFitting(available.get(type) ?? 0);
    if (position < 0) continue;
    const seconds = waiters[position]!.options.get(type)!.seconds;
    if (!best || position < best.position || (position === best.position && seconds < best.seconds))
      best = { position, type, seconds };
  }
  return best;
};
