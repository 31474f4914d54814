import { gangAllocate } from '../allocate/gang.ts';
import { withElasticTier } from '../elastic/tier.ts';
import { logicalPlacement } from '../migrate/logical-placement.ts';
import { relabelMigration } from '../migrate/relabel.ts';
import { srtfOrder } from '../order/srtf.ts';
import { maxWeightPacking } from '../pack/max-weight-packing.ts';
import { placeThenPackAndMigrate } from '../place/compose.ts';
import type { Policy } from '../stages.ts';

/**
 * Guaranteed jobs: shortest estimated remaining time first (preemptive), the requested GPU count on the fastest type
 * with room, Tesserae's consolidated placement from a clean slate, max-weight packing and migration-minimising
 * relabelling. Packing and relabelling run inside the placement stage so the elastic tier sees the final plan: elastic
 * (possibly heterogeneous) allocations are never packed or relabelled.
 */
const guaranteed: Policy = {
  name: 'tessera',
  description: '',
  order: srtfOrder,
  allocate: gangAllocate({ blocking: 'none', typeChoice: 'fastest' }),
  place: placeThenPackAndMigrate(logicalPlacement, maxWeightPacking(), relabelMigration),
};

/**
 * Tessera's own composition, chosen by measurement (docs/architecture.md, "Choosing tessera's stages"): on six
 * workloads it had the best or within 1 % of the best average JCT of all compositions tried, including Dally's
 * delay placement, which waits too long on heterogeneous clusters. EasyScale's elastic tier fills idle GPUs.
 */
export const tessera: Policy = {
  ...guaranteed,
  description:
    "Tessera: SRTF order, heterogeneity-aware gang sizing, Tesserae's clean-slate consolidated placement, max-weight packing and migration-minimising relabelling, plus EasyScale's elastic best-effort tier on idle GPUs.",
  ...withElasticTier(guaranteed, { homogeneousOnly: false }),
};
