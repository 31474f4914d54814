import { isHighSkew } from '../../catalog/skew.ts';
import type { Policy } from '../../framework/stages.ts';
import { fifoOrder } from './fifo.ts';
import { gangAllocate } from './gang.ts';
import { introspectiveMigration } from './introspective.ts';
import { keepThenFit } from './keep-then-fit.ts';
import { DEFAULT_LAS, lasOrder } from './las.ts';
import { srtfOrder } from './srtf.ts';

const fifo: Policy = {
  name: 'fifo',
  description:
    'FCFS with head-of-line blocking, gang allocation on one GPU type, first-fit placement; non-preemptive.',
  order: fifoOrder,
  allocate: gangAllocate({ blocking: 'global', typeChoice: 'most-free' }),
  place: keepThenFit({ strategy: 'first-fit', blocking: true }),
};

const yarnCs: Policy = {
  name: 'yarn-cs',
  description:
    'YARN capacity scheduler (EasyScale baseline): FIFO queue per GPU type with head-of-line blocking inside a type, gang, one GPU type per job, consolidated placement; non-preemptive.',
  order: fifoOrder,
  allocate: gangAllocate({ blocking: 'per-type', typeChoice: 'most-free' }),
  place: keepThenFit({ strategy: 'consolidated', blocking: false }),
};

const tiresias: Policy = {
  name: 'tiresias',
  description:
    'Tiresias discretised 2D-LAS (queues at 1 and 10 GPU-hours of attained service, starvation promotion), preemptive; consolidates high-skew models on one machine (or one rack when larger), places the others anywhere.',
  order: lasOrder(DEFAULT_LAS),
  allocate: gangAllocate({ blocking: 'none', typeChoice: 'most-free' }),
  place: keepThenFit({
    strategy: 'consolidated',
    blocking: false,
    strategyFor: (job) => (isHighSkew(job.spec.model) ? 'consolidated' : 'first-fit'),
    maxLevel: (job, demand, ctx) =>
      !isHighSkew(job.spec.model)
        ? 'network'
        : demand.gpus <= (ctx.capacity.get(demand.gpuType)?.largestHost ?? 0)
          ? 'machine'
          : 'rack',
  }),
};

const gandiva: Policy = {
  name: 'gandiva',
  description:
    'Gandiva-style introspective scheduling: greedy FCFS with backfill, network-agnostic first-fit placement, and migration of spread jobs to better-consolidated GPUs when they free up (time-slicing and packing not modelled).',
  order: fifoOrder,
  allocate: gangAllocate({ blocking: 'none', typeChoice: 'most-free' }),
  place: keepThenFit({ strategy: 'first-fit', blocking: false }),
  migrate: introspectiveMigration,
};

export const srtf: Policy = {
  name: 'srtf',
  description:
    'Shortest remaining (estimated) time first, preemptive, on the fastest GPU type with room, consolidated placement.',
  order: srtfOrder,
  allocate: gangAllocate({ blocking: 'none', typeChoice: 'fastest' }),
  place: keepThenFit({ strategy: 'consolidated', blocking: false }),
};

/** The classic baselines of issue 2, as compositions of the shared stages. */
export const BASELINE_POLICIES: readonly Policy[] = [fifo, yarnCs, tiresias, gandiva, srtf];
