import type { EventBridgeEvent, RuleTarget } from './types.ts';

/**
 * What a target receives for an event, following the target's `Input` (constant JSON),
 * `InputPath` (a JSONPath into the event) or `InputTransformer` (paths + template);
 * with none of these, the whole event.
 */
export class TargetInputError extends Error {
  override readonly name = 'TargetInputError';
}

const PATH = /^\$(?:\.[A-Za-z0-9_-]+|\[\d+\])*$/;

export function validateJsonPath(path: string, field: string): void {
  if (!PATH.test(path)) {
    throw new TargetInputError(`${field} '${path}' is not a supported JSONPath (use $.a.b or $.list[0])`);
  }
}

export function readJsonPath(document: unknown, path: string): unknown {
  let value: unknown = document;
  for (const [, key, index] of path.slice(1).matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = key !== undefined ? (value as Record<string, unknown>)[key] : (value as unknown[])[Number(index)];
  }
  return value;
}

export function validateTargetInput(target: RuleTarget): void {
  const given = [target.Input, target.InputPath, target.InputTransformer].filter((x) => x !== undefined);
  if (given.length > 1) {
    throw new TargetInputError(
      `Target ${target.Id}: only one of Input, InputPath and InputTransformer may be set`,
    );
  }
  if (target.Input !== undefined) {
    try {
      JSON.parse(target.Input);
    } catch {
      throw new TargetInputError(`Target ${target.Id}: Input must be valid JSON`);
    }
  }
  if (target.InputPath !== undefined) validateJsonPath(target.InputPath, `Target ${target.Id} InputPath`);
  if (target.InputTransformer) {
    if (typeof target.InputTransformer.InputTemplate !== 'string') {
      throw new TargetInputError(`Target ${target.Id}: InputTransformer.InputTemplate is required`);
    }
    for (const [name, path] of Object.entries(target.InputTransformer.InputPathsMap ?? {})) {
      validateJsonPath(path, `Target ${target.Id} InputPathsMap.${name}`);
    }
  }
}

export function targetInput(
  target: RuleTarget,
  event: EventBridgeEvent,
  rule: { name: string; arn: string },
): unknown {
  if (target.Input !== undefined) return JSON.parse(target.Input);
  if (target.InputPath !== undefined) return readJsonPath(event, target.InputPath);
  const transformer = target.InputTransformer;
  if (!transformer) return event;
  const values = new Map<string, unknown>([
    ['aws.events.rule-name', rule.name],
    ['aws.events.rule-arn', rule.arn],
    ['aws.events.event.json', event],
    ['aws.events.event.ingestion-time', event.time],
  ]);
  for (const [name, path] of Object.entries(transformer.InputPathsMap ?? {})) {
    values.set(name, readJsonPath(event, path));
  }
  const rendered = transformer.InputTemplate.replace(/<([A-Za-z0-9_.-]+)>/g, (placeholder, name: string) => {
    if (!values.has(name)) return placeholder;
    const value = values.get(name);
    // Strings are substituted bare (the template quotes them); everything else as JSON.
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  });
  try {
    return JSON.parse(rendered);
  } catch {
    return rendered;
  }
}
