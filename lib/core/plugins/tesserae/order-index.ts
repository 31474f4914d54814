import { scratchKey } from '../../framework/scratch.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';

const ORDER_INDEX =
  scratchKey<WeakMap<readonly JobState[], ReadonlyMap<string, number>>>('tesserae/order-index');

/**
 * Each job's position in `ordered` (the last one, should an id repeat), by job id. The pack stages of one round
 * (pairs kept, then the max-weight packing) are handed the same order, so the index is built once per order and
 * shared through the round's scratch store instead of once per stage.
 */
export const orderIndex = (ordered: readonly JobState[], ctx: RoundContext): ReadonlyMap<string, number> => {
  const byOrder = ctx.scratch.get(ORDER_INDEX, () => new WeakMap());
  let index = byOrder.get(ordered);
  if (!index) {
    const positions = new Map<string, number>();
    ordered.forEach((job, i) => {
      positions.set(job.spec.id, i);
    });
    index = positions;
    byOrder.set(ordered, index);
  }
  return index;
};
