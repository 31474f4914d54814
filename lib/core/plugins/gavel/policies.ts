import type { Policy } from '../../framework/stages.ts';
import { DEFAULT_LAS, lasOrder } from '../baselines/las.ts';
import { naiveMigration } from '../baselines/naive-migration.ts';
import { gavelAllocate, gavelPairs } from './gavel-round.ts';
import { gavelWorkerPlacement } from './gavel-workers.ts';

/**
 * The Tesserae paper's Gavel baseline (LAS with throughput-aware packing): Gavel's heterogeneity-aware max-min
 * fairness program with pair variables, solved by HiGHS each time the job set changes, rounded to whole
 * allocations by Gavel's priority mechanism; Gavel's worker assignment (keep your GPUs if still free, largest
 * jobs first) and its migration rule (a job migrates when its GPU ids change). See docs/tesserae.md.
 */
export const gavel: Policy = {
  name: 'gavel',
  description:
    "Gavel (LAS, with packing): max-min fairness over normalised throughput across GPU types with pair variables (LP, HiGHS), Gavel's round-based priorities X / received, largest-first worker assignment keeping GPUs that are still free; jobs migrate when their GPU ids change.",
  // Only breaks ties between equal Gavel priorities: the program and the received shares decide the rest.
  order: lasOrder(DEFAULT_LAS),
  allocate: gavelAllocate(),
  place: gavelWorkerPlacement,
  pack: gavelPairs(),
  migrate: naiveMigration,
};
