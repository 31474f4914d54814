/**
 * Resolution of CloudFormation intrinsic functions in a synthesized template, enough for the
 * properties of the resources we create locally: Ref, Fn::GetAtt, Fn::Join, Fn::Sub,
 * Fn::Select, Fn::Split, Fn::If (with Conditions), Fn::Base64, Fn::GetAZs and the pseudo
 * parameters. Anything else — or a reference to something without a local identity — raises
 * `UnresolvableError`, which the caller turns into "property ignored" or a hard error.
 */
export class UnresolvableError extends Error {
  override readonly name = 'UnresolvableError';
}

/** Marks `{"Ref": "AWS::NoValue"}`: the enclosing property is dropped. */
export const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

export interface ResolveContext {
  region: string;
  accountId: string;
  stackName: string;
  /** Value of `Ref` to a resource, or undefined when it has no local identity. */
  ref(logicalId: string): string | undefined;
  /** Value of `Fn::GetAtt`, or undefined when unknown. */
  getAtt(logicalId: string, attribute: string): string | undefined;
  parameter(name: string): string | string[] | undefined;
  condition(name: string): boolean;
}

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pseudo(name: string, ctx: ResolveContext): string | undefined {
  switch (name) {
    case 'AWS::Region':
      return ctx.region;
    case 'AWS::AccountId':
      return ctx.accountId;
    case 'AWS::StackName':
      return ctx.stackName;
    case 'AWS::StackId':
      return `arn:aws:cloudformation:${ctx.region}:${ctx.accountId}:stack/${ctx.stackName}/local`;
    case 'AWS::Partition':
      return 'aws';
    case 'AWS::URLSuffix':
      return 'amazonaws.com';
    default:
      return undefined;
  }
}

function resolveRef(name: unknown, ctx: ResolveContext): Json {
  if (typeof name !== 'string') throw new UnresolvableError('Ref takes a string');
  if (name === 'AWS::NoValue') return NO_VALUE;
  const fromPseudo = pseudo(name, ctx);
  if (fromPseudo !== undefined) return fromPseudo;
  const fromParameter = ctx.parameter(name);
  if (fromParameter !== undefined) return fromParameter;
  const fromResource = ctx.ref(name);
  if (fromResource !== undefined) return fromResource;
  throw new UnresolvableError(`Ref ${name} has no local value`);
}

function resolveGetAtt(args: unknown, ctx: ResolveContext): string {
  const [logicalId, attribute] =
    typeof args === 'string'
      ? (args.split(/\.(.*)/s) as [string, string | undefined])
      : Array.isArray(args)
        ? (args as [unknown, unknown])
        : [];
  if (typeof logicalId !== 'string' || typeof attribute !== 'string') {
    throw new UnresolvableError('Fn::GetAtt takes [logicalId, attribute]');
  }
  const value = ctx.getAtt(logicalId, attribute);
  if (value === undefined)
    throw new UnresolvableError(`Fn::GetAtt ${logicalId}.${attribute} has no local value`);
  return value;
}

function asString(value: Json, what: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new UnresolvableError(`${what} must resolve to a string`);
}

function resolveSub(args: Json, ctx: ResolveContext): string {
  const [template, variables] = Array.isArray(args) ? (args as [Json, Json]) : [args, {}];
  if (typeof template !== 'string' || !isObject(variables ?? {})) {
    throw new UnresolvableError('Fn::Sub takes a string or [string, {variables}]');
  }
  const vars = (variables ?? {}) as Record<string, Json>;
  return template.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
    if (name.startsWith('!')) return `\${${name.slice(1)}}`; // ${!Literal}
    if (Object.hasOwn(vars, name)) return asString(resolveValue(vars[name], ctx), `Fn::Sub variable ${name}`);
    if (name.includes('.')) return resolveGetAtt(name, ctx);
    const value = resolveRef(name, ctx);
    if (value === NO_VALUE) throw new UnresolvableError(`Fn::Sub cannot use AWS::NoValue (${whole})`);
    return asString(value, `Fn::Sub ${whole}`);
  });
}

export function evaluateCondition(expression: Json, ctx: ResolveContext): boolean {
  if (!isObject(expression)) throw new UnresolvableError('a condition must be an object');
  const [fn, args] = Object.entries(expression)[0] ?? [];
  const list = Array.isArray(args) ? args : [];
  switch (fn) {
    case 'Condition':
      return ctx.condition(asString(args, 'Condition'));
    case 'Fn::Equals':
      return JSON.stringify(resolveValue(list[0], ctx)) === JSON.stringify(resolveValue(list[1], ctx));
    case 'Fn::Not':
      return !evaluateCondition(list[0], ctx);
    case 'Fn::And':
      return list.every((c) => evaluateCondition(c, ctx));
    case 'Fn::Or':
      return list.some((c) => evaluateCondition(c, ctx));
    default:
      throw new UnresolvableError(`unsupported condition function ${fn}`);
  }
}

/** Resolve every intrinsic in `value`; properties that resolve to AWS::NoValue disappear. */
export function resolveValue(value: Json, ctx: ResolveContext): Json {
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, ctx)).filter((v) => v !== NO_VALUE);
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const key = keys[0]!;
    const args = value[key];
    switch (key) {
      case 'Ref':
        return resolveRef(args, ctx);
      case 'Fn::GetAtt':
        return resolveGetAtt(args, ctx);
      case 'Fn::Join': {
        const [separator, parts] = Array.isArray(args) ? args : [];
        if (typeof separator !== 'string') throw new UnresolvableError('Fn::Join takes [separator, [parts]]');
        const resolvedParts = resolveValue(parts, ctx);
        if (!Array.isArray(resolvedParts)) throw new UnresolvableError('Fn::Join parts must be a list');
        return resolvedParts.map((p) => asString(p, 'Fn::Join part')).join(separator);
      }
      case 'Fn::Sub':
        return resolveSub(args, ctx);
      case 'Fn::Select': {
        const [index, list] = Array.isArray(args) ? args : [];
        const resolvedList = resolveValue(list, ctx);
        const i = Number(resolveValue(index, ctx));
        if (!Array.isArray(resolvedList) || !Number.isInteger(i) || i < 0 || i >= resolvedList.length) {
          throw new UnresolvableError('Fn::Select index out of range');
        }
        return resolvedList[i];
      }
      case 'Fn::Split': {
        const [separator, source] = Array.isArray(args) ? args : [];
        if (typeof separator !== 'string') throw new UnresolvableError('Fn::Split takes [separator, string]');
        return asString(resolveValue(source, ctx), 'Fn::Split source').split(separator);
      }
      case 'Fn::If': {
        const [condition, whenTrue, whenFalse] = Array.isArray(args) ? args : [];
        return resolveValue(
          ctx.condition(asString(condition, 'Fn::If condition')) ? whenTrue : whenFalse,
          ctx,
        );
      }
      case 'Fn::Base64':
        return Buffer.from(asString(resolveValue(args, ctx), 'Fn::Base64 input')).toString('base64');
      case 'Fn::GetAZs':
        return ['a', 'b', 'c'].map((letter) => `${ctx.region}${letter}`);
      default:
        if (key.startsWith('Fn::')) throw new UnresolvableError(`${key} is not supported locally`);
    }
  }
  const out: Record<string, Json> = {};
  for (const [key, inner] of Object.entries(value)) {
    const resolved = resolveValue(inner, ctx);
    if (resolved !== NO_VALUE) out[key] = resolved;
  }
  return out;
}

/** Logical ids a value refers to (Ref, Fn::GetAtt, Fn::Sub placeholders), for ordering creation. */
export function referencedLogicalIds(value: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) referencedLogicalIds(v, into);
  } else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string' && !inner.startsWith('AWS::')) into.add(inner);
      else if (key === 'Fn::GetAtt') {
        const id =
          typeof inner === 'string' ? inner.split('.')[0] : Array.isArray(inner) ? inner[0] : undefined;
        if (typeof id === 'string') into.add(id);
      } else if (key === 'Fn::Sub') {
        const template = Array.isArray(inner) ? inner[0] : inner;
        const variables = Array.isArray(inner) && isObject(inner[1]) ? inner[1] : {};
        if (typeof template === 'string') {
          for (const [, name] of template.matchAll(/\$\{([^}!][^}]*)\}/g)) {
            const id = name!.split('.')[0]!;
            if (!id.startsWith('AWS::') && !Object.hasOwn(variables, name!)) into.add(id);
          }
        }
        if (Array.isArray(inner)) referencedLogicalIds(inner[1], into);
      } else referencedLogicalIds(inner, into);
    }
  }
  return into;
}
