import { scratchKey } from './scratch.ts';
import type { RoundContext } from './stages.ts';

const CAPACITY_KEY = scratchKey<string>('cluster capacity key');

/**
 * The round's cluster name and usable capacity per GPU type as one string, made once per round: memo entries
 * (lib/core/framework/round-memo.ts) that depend only on what types and how many GPUs the cluster offers check it.
 */
export const capacityKey = (ctx: RoundContext): string =>
  ctx.scratch.get(CAPACITY_KEY, () => {
    const types = [...ctx.capacity].map(([t, c]) => `${t}:${c.gpus}:${c.largestHost}`).join(',');
    return `${ctx.cluster.name}|${types}`;
  });
