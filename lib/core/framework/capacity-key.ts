import { memoKey } from './round-memo.ts';
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
    return internedKey(ctx, `${ctx.cluster.name}|${types}`);
  });

/** Per cluster object: each key string made for it, by its text. */
const INTERNED = memoKey<Map<string, string>>('interned capacity keys');

/**
 * The first string of this text made for the round's cluster: keys rebuilt every round are then the very same
 * string while the capacity stays, and the memo's checks (`entry.capacity === key`, once per job and round) compare
 * pointers instead of every character. One string per capacity the cluster has had.
 */
export const internedKey = (ctx: RoundContext, key: string): string => {
  const known = ctx.memo.of(ctx.cluster, INTERNED, () => new Map());
  const first = known.get(key);
  if (first !== undefined) return first;
  known.set(key, key);
  return key;
};
