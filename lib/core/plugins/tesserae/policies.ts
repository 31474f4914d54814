import type { Policy } from '../../framework/stages.ts';
import { gangAllocate } from '../baselines/gang.ts';
import { DEFAULT_LAS, lasOrder } from '../baselines/las.ts';
import { naiveMigration } from '../baselines/naive-migration.ts';
import { ftfOrder } from './ftf.ts';
import { logicalPlacement } from './logical-placement.ts';
import { maxWeightPacking } from './max-weight-packing.ts';
import { relabelMigration } from './relabel.ts';

/** Tesserae's round (§3): place by priority from a clean slate, pack pending jobs, relabel to minimise moves. */
const tesseraeRound = {
  allocate: gangAllocate({ blocking: 'none', typeChoice: 'most-free' }),
  place: logicalPlacement,
  pack: maxWeightPacking(),
  migrate: relabelMigration,
} as const;

const tesseraeT: Policy = {
  name: 'tesserae-t',
  description:
    'Tesserae-T: Tiresias 2D-LAS order, consolidated placement from a clean slate, max-weight packing of pending jobs onto placed ones (≤ 2 jobs per GPU, gain > 5 %), and migration-minimising relabelling (two-level assignment).',
  order: lasOrder(DEFAULT_LAS),
  ...tesseraeRound,
};

const tesseraeTNaive: Policy = {
  ...tesseraeT,
  name: 'tesserae-t-naive',
  description:
    "Tesserae-T with Gavel's migration rule instead of relabelling (the plan's GPU ids are physical ids): the ablation behind Tesserae's 36 % fewer migrations.",
  migrate: naiveMigration,
};

const tesseraeFtf: Policy = {
  name: 'tesserae-ftf',
  description:
    'Tesserae-FTF: finish-time-fairness order (largest estimated Themis ρ first) with Tesserae placement, packing and relabelling.',
  order: ftfOrder,
  ...tesseraeRound,
};

const tiresiasSingle: Policy = {
  ...tesseraeT,
  name: 'tiresias-single',
  description:
    'Tiresias (Single): Tiresias 2D-LAS with Tesserae placement and relabelling, packing only 1-GPU jobs (as Lucid and Pollux avoid packing distributed jobs).',
  pack: maxWeightPacking({ maxJobGpus: 1 }),
};

export const TESSERAE_POLICIES: readonly Policy[] = [tesseraeT, tesseraeTNaive, tesseraeFtf, tiresiasSingle];
