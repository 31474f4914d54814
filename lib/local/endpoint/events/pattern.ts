/**
 * EventBridge event patterns: compile once (validating, with the failing path in the
 * message) and then match events. Supports exact values (strings, numbers, booleans, null),
 * nested fields, arrays in events (any element may match), `$or`, and the content filters
 * `prefix`, `suffix`, `anything-but`, `numeric`, `exists`, `equals-ignore-case`, `wildcard`
 * and IPv4 `cidr`.
 */
export class EventPatternError extends Error {
  override readonly name = 'EventPatternError';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type FieldMatcher = (value: unknown, present: boolean) => boolean;
export type CompiledPattern = (event: unknown) => boolean;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, message: string): never {
  throw new EventPatternError(`Event pattern is not valid at ${path || '<root>'}: ${message}`);
}

export function compileEventPattern(pattern: unknown): CompiledPattern {
  if (typeof pattern === 'string') {
    try {
      pattern = JSON.parse(pattern);
    } catch (error) {
      throw new EventPatternError(`Event pattern is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (!isPlainObject(pattern)) fail('', 'the pattern must be a JSON object');
  return compileObject(pattern, '');
}

function compileObject(pattern: Record<string, unknown>, path: string): CompiledPattern {
  const checks: ((event: Record<string, unknown>) => boolean)[] = [];
  for (const [key, spec] of Object.entries(pattern)) {
    const fieldPath = path ? `${path}.${key}` : key;
    if (key === '$or') {
      if (!Array.isArray(spec) || spec.length < 2 || !spec.every(isPlainObject)) {
        fail(fieldPath, '$or takes an array of at least two patterns');
      }
      const alternatives = spec.map((alt, i) =>
        compileObject(alt as Record<string, unknown>, `${fieldPath}[${i}]`),
      );
      checks.push((event) => alternatives.some((alt) => alt(event)));
    } else if (isPlainObject(spec)) {
      const nested = compileObject(spec, fieldPath);
      checks.push((event) => {
        const value = event[key];
        const candidates = Array.isArray(value) ? value : [value];
        return candidates.some((candidate) => isPlainObject(candidate) && nested(candidate));
      });
    } else if (Array.isArray(spec)) {
      if (spec.length === 0) fail(fieldPath, 'a list of matchers must not be empty');
      const matchers = spec.map((matcher, i) => compileMatcher(matcher as Json, `${fieldPath}[${i}]`));
      checks.push((event) => {
        const present = Object.hasOwn(event, key);
        const value = event[key];
        if (Array.isArray(value)) {
          return value.some((element) => matchers.some((m) => m(element, true)));
        }
        return matchers.some((m) => m(value, present));
      });
    } else {
      fail(fieldPath, 'each field must map to an array of matchers or to a nested pattern object');
    }
  }
  return (event) => isPlainObject(event) && checks.every((check) => check(event));
}

function compileMatcher(matcher: Json, path: string): FieldMatcher {
  if (matcher === null) return (value, present) => present && value === null;
  if (typeof matcher === 'string' || typeof matcher === 'boolean') {
    return (value, present) => present && value === matcher;
  }
  if (typeof matcher === 'number')
    return (value, present) => present && typeof value === 'number' && value === matcher;
  if (Array.isArray(matcher)) fail(path, 'matchers cannot be nested arrays');
  const entries = Object.entries(matcher);
  if (entries.length !== 1) fail(path, 'a content filter must have exactly one operator');
  const [operator, operand] = entries[0]!;
  switch (operator) {
    case 'prefix':
      return stringTest(path, operator, operand, (value, text) => value.startsWith(text));
    case 'suffix':
      return stringTest(path, operator, operand, (value, text) => value.endsWith(text));
    case 'equals-ignore-case': {
      if (typeof operand !== 'string') fail(path, 'equals-ignore-case takes a string');
      const lower = operand.toLowerCase();
      return (value, present) => present && typeof value === 'string' && value.toLowerCase() === lower;
    }
    case 'wildcard': {
      if (typeof operand !== 'string') fail(path, 'wildcard takes a string');
      const regex = wildcardRegExp(operand);
      return (value, present) => present && typeof value === 'string' && regex.test(value);
    }
    case 'exists':
      if (typeof operand !== 'boolean') fail(path, 'exists takes true or false');
      return (_value, present) => present === operand;
    case 'numeric':
      return numericMatcher(operand, path);
    case 'cidr':
      return cidrMatcher(operand, path);
    case 'anything-but':
      return anythingBut(operand, path);
    default:
      return fail(path, `unknown content filter '${operator}'`);
  }
}

function stringTest(
  path: string,
  operator: string,
  operand: Json,
  test: (value: string, text: string) => boolean,
): FieldMatcher {
  if (typeof operand === 'string') {
    return (value, present) => present && typeof value === 'string' && test(value, operand);
  }
  if (isPlainObject(operand) && typeof operand['equals-ignore-case'] === 'string') {
    const lower = (operand['equals-ignore-case'] as string).toLowerCase();
    return (value, present) => present && typeof value === 'string' && test(value.toLowerCase(), lower);
  }
  return fail(path, `${operator} takes a string or {"equals-ignore-case": string}`);
}

function wildcardRegExp(glob: string): RegExp {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's');
}

const NUMERIC_OPERATORS: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '=': (a, b) => a === b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function numericMatcher(operand: Json, path: string): FieldMatcher {
  if (!Array.isArray(operand) || operand.length === 0 || operand.length % 2 !== 0) {
    fail(path, 'numeric takes operator/number pairs, e.g. [">", 0, "<=", 5]');
  }
  const tests: ((value: number) => boolean)[] = [];
  for (let i = 0; i < operand.length; i += 2) {
    const op = operand[i];
    const bound = operand[i + 1];
    const compare = typeof op === 'string' ? NUMERIC_OPERATORS[op] : undefined;
    if (!compare || typeof bound !== 'number') fail(path, `numeric operator #${i / 2 + 1} is not valid`);
    tests.push((value) => compare(value, bound));
  }
  return (value, present) => present && typeof value === 'number' && tests.every((t) => t(value));
}

function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

function cidrMatcher(operand: Json, path: string): FieldMatcher {
  const match = typeof operand === 'string' ? /^(.+)\/(\d{1,2})$/.exec(operand) : null;
  const base = match ? parseIpv4(match[1]!) : undefined;
  const bits = match ? Number(match[2]) : Number.NaN;
  if (base === undefined || !(bits >= 0 && bits <= 32))
    fail(path, 'cidr takes an IPv4 block such as "10.0.0.0/24"');
  const size = 2 ** (32 - bits);
  const start = Math.floor(base / size) * size;
  return (value, present) => {
    if (!present || typeof value !== 'string') return false;
    const ip = parseIpv4(value);
    return ip !== undefined && ip >= start && ip < start + size;
  };
}

function anythingBut(operand: Json, path: string): FieldMatcher {
  let excluded: FieldMatcher;
  if (typeof operand === 'string' || typeof operand === 'number') {
    excluded = compileMatcher(operand, path);
  } else if (Array.isArray(operand)) {
    if (!operand.every((x) => typeof x === 'string' || typeof x === 'number')) {
      fail(path, 'anything-but lists must hold only strings or numbers');
    }
    const matchers = operand.map((x, i) => compileMatcher(x, `${path}[${i}]`));
    excluded = (value, present) => matchers.some((m) => m(value, present));
  } else if (isPlainObject(operand)) {
    const [op] = Object.keys(operand);
    if (op !== 'prefix' && op !== 'suffix' && op !== 'equals-ignore-case' && op !== 'wildcard') {
      fail(path, 'anything-but takes a value, a list, or {prefix|suffix|equals-ignore-case|wildcard}');
    }
    excluded = compileMatcher(operand, path);
  } else {
    return fail(path, 'anything-but takes a value, a list, or a content filter object');
  }
  return (value, present) => present && !excluded(value, present);
}
