/**
 * Plain words for a value of the wrong type in a job spec: zod's default ("Invalid input: expected array,
 * received string") speaks of its own types, and a missing required field would read "must be an integer".
 * A user writes YAML, so the rule names YAML's shapes and what was given instead (pure).
 */

const EXPECTED: Readonly<Record<string, string>> = {
  array: 'a list, e.g. [a, b]',
  record: 'a mapping of names to values, e.g. { key: value }',
  object: 'a mapping of fields, e.g. { field: value }',
  string: 'a string',
  boolean: 'true or false',
  number: 'a number',
};

/** What a value is, in YAML's words. */
export const describeValue = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value} (${String(value)})`;
};

/** The value at a zod issue's path in the submitted document (undefined when the path leaves it). */
export const valueAt = (document: unknown, path: readonly PropertyKey[]): unknown => {
  let node = document;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
};

/**
 * The rule for an `invalid_type` issue: `is required` when the field is absent, else the expected shape and what
 * was given; a message the schema wrote itself (`must be an integer`) is kept for present values.
 */
export const typeIssueRule = (
  issue: { readonly message: string; readonly expected?: string },
  value: unknown,
  present: boolean,
): string => {
  if (!present) return 'is required';
  const expected = issue.expected !== undefined ? EXPECTED[issue.expected] : undefined;
  if (!issue.message.startsWith('Invalid input') || expected === undefined) return issue.message;
  return `must be ${expected}; got ${describeValue(value)}`;
};

/** Edit distance of two short names (Levenshtein), for suggesting the field a typo meant. */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
};

/** `unknown field`, with the known field it most likely misspells (case, a letter or two). */
export const unknownFieldRule = (key: string, known: readonly string[]): string => {
  const lower = key.toLowerCase();
  const best = known
    .map((name) => ({ name, d: name.toLowerCase() === lower ? 0 : distance(lower, name.toLowerCase()) }))
    .filter(({ name, d }) => d <= Math.min(2, Math.floor(name.length / 3)))
    .sort((x, y) => x.d - y.d)[0];
  return best ? `unknown field (did you mean ${best.name}?)` : 'unknown field';
};
