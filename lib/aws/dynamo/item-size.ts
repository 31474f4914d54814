/**
 * DynamoDB's size of an item and of its entry in a global secondary index, by the documented rules (pure): names and
 * strings in UTF-8 bytes, a number about one byte per two significant digits plus one, booleans and null one byte,
 * lists and maps three bytes plus one per element; an index entry is its projected attributes, the table's and the
 * index's keys, and 100 bytes. What a write costs follows from it: one write unit per KB, rounded up.
 */

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

const numberSize = (value: number): number => {
  const digits = Math.abs(value)
    .toExponential()
    .replace(/e.*$/, '')
    .replace('.', '')
    .replace(/^0+/, '').length;
  return Math.ceil(Math.max(1, digits) / 2) + 1;
};

export const valueSize = (value: unknown): number => {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return numberSize(value);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueSize(v), 0);
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .reduce((n, [k, v]) => n + 1 + utf8(k) + valueSize(v), 0)
    );
  return 0;
};

/** Bytes of an item: each attribute's name and value. */
export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item)
    .filter(([, v]) => v !== undefined)
    .reduce((n, [k, v]) => n + utf8(k) + valueSize(v), 0);

/** Bytes of an item's entry in an index holding `projected` (every attribute when 'ALL') besides `keys`. */
export const indexEntrySize = (
  item: Record<string, unknown>,
  keys: readonly string[],
  projected: readonly string[] | 'ALL',
): number => {
  const kept = projected === 'ALL' ? Object.keys(item) : [...new Set([...keys, ...projected])];
  return 100 + itemSize(Object.fromEntries(kept.filter((k) => k in item).map((k) => [k, item[k]])));
};

/** Write units of writing an item of `bytes` (standard writes; a transactional write costs twice this). */
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
