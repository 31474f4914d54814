import type { ItemChanges } from './expressions.ts';

/** What an item looks like after `changes` (the same semantics as the update expression DynamoDB applies). */
export const applyChanges = <T extends object>(item: T, changes: ItemChanges): T => {
  const next = { ...item } as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes.set ?? {})) if (value !== undefined) next[key] = value;
  for (const [key, value] of Object.entries(changes.add ?? {}))
    next[key] = (typeof next[key] === 'number' ? (next[key] as number) : 0) + value;
  for (const key of changes.remove ?? []) delete next[key];
  return next as T;
};
