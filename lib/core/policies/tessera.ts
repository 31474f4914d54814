import { criusAllocate } from '../cells/allocate.ts';
import { withElasticTier } from '../elastic/tier.ts';
import { relabelMigration } from '../migrate/relabel.ts';
import { srtfOrder } from '../order/srtf.ts';
import { maxWeightPacking } from '../pack/max-weight-packing.ts';
import { placeThenPackAndMigrate } from '../place/compose.ts';
import { keepThenFit } from '../place/keep-then-fit.ts';
import type { Policy } from '../stages.ts';
import { DEFAULT_CRIUS_OPTIONS } from './crius.ts';

/**
 * Guaranteed jobs: Crius's Cell allocation (GPU type × count × pipeline stages, Algorithm 1 search; it orders jobs
 * itself), consolidated placement that keeps unchanged allocations, Tesserae's max-weight packing and
 * migration-minimising relabelling. Packing and relabelling run inside the placement stage so the elastic tier sees
 * the final plan: elastic (possibly heterogeneous) allocations are never packed or relabelled.
 */
const guaranteed: Policy = {
  name: 'tessera',
  description: '',
  order: srtfOrder,
  allocate: criusAllocate({ ...DEFAULT_CRIUS_OPTIONS, name: 'tessera' }),
  place: placeThenPackAndMigrate(
    keepThenFit({ strategy: 'consolidated', blocking: false }),
    maxWeightPacking(),
    relabelMigration,
  ),
};

/**
 * Tessera's own composition, chosen by measurement (docs/architecture.md, "Choosing tessera's stages"): Crius's
 * allocation with Tesserae's packing and relabelling and EasyScale's elastic tier on idle GPUs. Dally's delay
 * placement is left out: its timers keep jobs waiting on heterogeneous clusters with small hosts.
 */
export const tessera: Policy = {
  ...guaranteed,
  description:
    "Tessera: Crius Cell allocation (type × count × stages), consolidated placement, Tesserae's max-weight packing and migration-minimising relabelling, and EasyScale's elastic best-effort tier on idle GPUs.",
  ...withElasticTier(guaranteed, { homogeneousOnly: false }),
};
