import type { MigrateStage } from '../../framework/stages.ts';
import { relabelWithin } from '../tesserae/relabel.ts';
import { keepsEveryRunningJob } from '../tesserae/relabel-unless-in-place.ts';

/**
 * Tesserae's migration-minimising relabelling, with hosts interchangeable only within one rack. Tesserae renames
 * hosts of one GPU type and size freely; after a consolidated placement that put a multi-host job in one rack (e.g.
 * a job grown from one machine to two), renaming kept one of its old hosts and moved the rest to another rack, so it
 * ran across the network for the rest of its run (Dally's batch on dally-16r: 12 % slower than in one rack). Within
 * racks the renaming still keeps most jobs in place, and never worsens the level the placement chose. Skipped, as
 * `relabelUnlessInPlace`, when the plan already keeps every running job on its GPUs.
 */
const relabelByRack = relabelWithin((h) => h.rack);

export const relabelWithinRacks: MigrateStage = {
  name: 'relabel-within-racks',
  relabel: (ordered, plan, free, ctx) =>
    keepsEveryRunningJob(ordered, plan) ? plan : relabelByRack(ordered, plan, free, ctx),
};
