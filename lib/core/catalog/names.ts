/** A model name as sources write it, split into a lookup key and the batch size it may carry. */
export interface NormalisedModelName {
  /** Lower case, only `[a-z0-9.]`: `ResNet-50`, `resnet_50`, `RESNET 50` → `resnet50`; `Bert-Large` → `bertlarge`. */
  readonly key: string;
  /** From a Gavel-style suffix `(batch size N)`, when present. */
  readonly batchSize?: number;
}

const BATCH_SUFFIX = /\(\s*batch[\s_-]*size\s*[=:]?\s*(\d+)\s*\)\s*$/i;

/** Lookup key of a model name: lower case with everything but letters, digits and `.` removed. */
export const modelKey = (name: string): string => name.toLowerCase().replace(/[^a-z0-9.]+/g, '');

/** Lookup key of a name that may carry a `(batch size N)` suffix; `''` when nothing is left. */
export const modelLookupKey = (name: string): string => modelKey(name.replace(BATCH_SUFFIX, ''));

/**
 * Normalises a model name: `ResNet-50 (batch size 64)` → `{ key: 'resnet50', batchSize: 64 }`.
 * Throws a RangeError when nothing of the name is left or the batch size is not a positive integer.
 */
export const normaliseModelName = (name: string): NormalisedModelName => {
  const match = BATCH_SUFFIX.exec(name);
  const base = match ? name.slice(0, match.index) : name;
  const key = modelKey(base);
  if (key === '') throw new RangeError(`model name "${name}" has no letters or digits`);
  if (!match) return { key };
  const batchSize = Number(match[1]);
  if (!(Number.isSafeInteger(batchSize) && batchSize > 0)) {
    throw new RangeError(`model name "${name}": batch size must be a positive integer`);
  }
  return { key, batchSize };
};
