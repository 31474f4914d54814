/**
 * The part of IAM policy evaluation the local endpoint needs to enforce session policies (pure): Allow and Deny
 * statements, `*`/`?` wildcards in actions (case-insensitive) and resources, and `StringEquals` / `StringLike`
 * conditions. An explicit Deny wins; without a matching Allow a request is denied; an operator this evaluator does
 * not know makes its statement match nothing (fail closed).
 */

export interface AccessRequest {
  /** `s3:GetObject`. */
  readonly action: string;
  /** `arn:aws:s3:::bucket/key`. */
  readonly resource: string;
  /** Condition keys of the request (`s3:prefix`). */
  readonly context?: Readonly<Record<string, string>>;
}

interface Statement {
  readonly Effect?: unknown;
  readonly Action?: unknown;
  readonly Resource?: unknown;
  readonly Condition?: unknown;
}

const list = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.filter((v) => typeof v === 'string')
      : [];

const wildcard = (pattern: string, flags = ''): RegExp =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    flags,
  );

const matchesAny = (patterns: readonly string[], value: string, flags = ''): boolean =>
  patterns.some((p) => wildcard(p, flags).test(value));

const conditionHolds = (condition: unknown, context: Readonly<Record<string, string>>): boolean => {
  if (condition === undefined) return true;
  if (!condition || typeof condition !== 'object') return false;
  return Object.entries(condition).every(([operator, keys]) => {
    if (!keys || typeof keys !== 'object') return false;
    return Object.entries(keys).every(([key, expected]) => {
      const actual = context[key];
      if (actual === undefined) return false;
      if (operator === 'StringEquals') return list(expected).includes(actual);
      if (operator === 'StringLike') return matchesAny(list(expected), actual);
      return false;
    });
  });
};

const statementMatches = (s: Statement, request: AccessRequest): boolean =>
  matchesAny(list(s.Action), request.action, 'i') &&
  matchesAny(list(s.Resource), request.resource) &&
  conditionHolds(s.Condition, request.context ?? {});

/** Whether the policy document (JSON text or parsed) allows the request. */
export const policyAllows = (policy: string | object, request: AccessRequest): boolean => {
  const document = (typeof policy === 'string' ? JSON.parse(policy) : policy) as { Statement?: unknown };
  const statements = (Array.isArray(document.Statement) ? document.Statement : [document.Statement]).filter(
    (s): s is Statement => !!s && typeof s === 'object',
  );
  const matching = statements.filter((s) => statementMatches(s, request));
  if (matching.some((s) => s.Effect === 'Deny')) return false;
  return matching.some((s) => s.Effect === 'Allow');
};
