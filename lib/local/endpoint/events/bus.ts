import { type CompiledPattern, compileEventPattern, EventPatternError } from './pattern.ts';
import { parseScheduleExpression, type Schedule, ScheduleExpressionError } from './schedule.ts';
import { TargetInputError, targetInput, validateTargetInput } from './target-input.ts';
import {
  type EventBridgeEvent,
  type EventDelivery,
  EventsError,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
  type Rule,
  type RuleState,
  type RuleTarget,
} from './types.ts';

/**
 * The local EventBridge: rules, targets and pattern matching, plus an in-process
 * subscription API. The endpoint does not invoke targets itself — the local Lambda runner
 * subscribes and receives each (rule, target, event, input) delivery, and drives schedule
 * rules by calling `fireSchedule` when `nextFireTime` says so.
 */
export interface EventBusOptions {
  region: string;
  accountId: string;
  clock: () => number;
  newEventId: () => string;
  /** Runs a delivery later; the default defers to the next macrotask so API calls return first. */
  defer?: (task: () => void) => void;
  onListenerError?: (error: unknown) => void;
}

export interface ScheduledRule {
  rule: Rule;
  schedule: Schedule;
}

export type DeliveryListener = (delivery: EventDelivery) => void | Promise<void>;
export type EventListener = (event: EventBridgeEvent) => void | Promise<void>;

export interface EventBusSnapshot {
  rules: Rule[];
}

const DEFAULT_BUS = 'default';
const RULE_NAME = /^[.\-_A-Za-z0-9]{1,64}$/;
const TARGET_ID = /^[.\-_A-Za-z0-9]{1,64}$/;
const MAX_TARGETS_PER_RULE = 5;
const RULE_STATES = new Set<RuleState>([
  'ENABLED',
  'DISABLED',
  'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS',
]);

/** AWS writes event times to the second. */
export function eventTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class LocalEventBus {
  private readonly rules = new Map<string, Rule>();
  private readonly patterns = new Map<string, CompiledPattern>();
  private readonly deliveryListeners = new Set<DeliveryListener>();
  private readonly eventListeners = new Set<EventListener>();
  private readonly defer: (task: () => void) => void;
  private readonly changeListeners = new Set<() => void>();

  constructor(private readonly options: EventBusOptions) {
    this.defer = options.defer ?? ((task) => setImmediate(task));
  }

  // ---- in-process API ------------------------------------------------------------------

  /** Receive every delivery of a matched event (or schedule tick) to a rule target. */
  subscribe(listener: DeliveryListener): () => void {
    this.deliveryListeners.add(listener);
    return () => this.deliveryListeners.delete(listener);
  }

  /** Receive every event put on any bus, matched or not (e.g. simulated hosts watching EC2 events). */
  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Called after every change of rules or targets (used to persist state). */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Put one event on a bus (as an AWS service would) and deliver it to matching rules' targets. */
  publish(
    event: Omit<EventBridgeEvent, 'id' | 'version' | 'account' | 'region' | 'time'> & { time?: string },
    eventBusName = DEFAULT_BUS,
  ): EventBridgeEvent {
    const full: EventBridgeEvent = {
      version: '0',
      id: this.options.newEventId(),
      'detail-type': event['detail-type'],
      source: event.source,
      account: this.options.accountId,
      time: event.time ?? eventTime(this.options.clock()),
      region: this.options.region,
      resources: event.resources,
      detail: event.detail,
    };
    this.route(full, this.busName(eventBusName));
    return full;
  }

  /** Rules with a schedule expression that are enabled, for the schedule driver. */
  scheduledRules(): ScheduledRule[] {
    return [...this.rules.values()]
      .filter((rule) => rule.ScheduleExpression && rule.State !== 'DISABLED')
      .map((rule) => ({
        rule: structuredClone(rule),
        schedule: parseScheduleExpression(rule.ScheduleExpression!),
      }));
  }

  /** Deliver a schedule tick of `ruleName` (a "Scheduled Event" at `at`) to the rule's targets. */
  fireSchedule(
    ruleName: string,
    at: number = this.options.clock(),
    eventBusName = DEFAULT_BUS,
  ): EventDelivery[] {
    const rule = this.requireRule(ruleName, eventBusName);
    if (!rule.ScheduleExpression) {
      throw new EventsError('ValidationException', `Rule ${ruleName} has no schedule expression`);
    }
    const event: EventBridgeEvent = {
      version: '0',
      id: this.options.newEventId(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: this.options.accountId,
      time: eventTime(at),
      region: this.options.region,
      resources: [rule.Arn],
      detail: {},
    };
    const deliveries = rule.Targets.map((target) => this.delivery(rule, target, event));
    this.dispatch(deliveries);
    return deliveries;
  }

  listAllRules(): Rule[] {
    return [...this.rules.values()].map((rule) => structuredClone(rule));
  }

  // ---- API operations ------------------------------------------------------------------

  putRule(input: {
    Name?: string;
    EventBusName?: string;
    ScheduleExpression?: string;
    EventPattern?: string;
    State?: string;
    Description?: string;
    RoleArn?: string;
  }): { RuleArn: string } {
    const name = this.ruleName(input.Name);
    const bus = this.busName(input.EventBusName);
    if (!input.ScheduleExpression && !input.EventPattern) {
      throw new EventsError(
        'ValidationException',
        'Parameter(s) EventPattern or ScheduleExpression must be specified.',
      );
    }
    if (input.ScheduleExpression) {
      if (bus !== DEFAULT_BUS) {
        throw new EventsError(
          'ValidationException',
          'ScheduleExpression is supported only on the default event bus.',
        );
      }
      try {
        parseScheduleExpression(input.ScheduleExpression);
      } catch (error) {
        if (error instanceof ScheduleExpressionError)
          throw new EventsError('ValidationException', error.message);
        throw error;
      }
    }
    let pattern: CompiledPattern | undefined;
    if (input.EventPattern) {
      try {
        pattern = compileEventPattern(input.EventPattern);
      } catch (error) {
        if (error instanceof EventPatternError)
          throw new EventsError('InvalidEventPatternException', error.message);
        throw error;
      }
    }
    const state = (input.State ?? 'ENABLED') as RuleState;
    if (!RULE_STATES.has(state)) {
      throw new EventsError('ValidationException', `State '${input.State}' must be ENABLED or DISABLED`);
    }
    const key = ruleKey(bus, name);
    const existing = this.rules.get(key);
    const rule: Rule = {
      Name: name,
      Arn: this.ruleArn(bus, name),
      EventBusName: bus,
      State: state,
      CreatedAt: existing?.CreatedAt ?? this.options.clock(),
      Targets: existing?.Targets ?? [],
    };
    if (input.EventPattern) rule.EventPattern = input.EventPattern;
    if (input.ScheduleExpression) rule.ScheduleExpression = input.ScheduleExpression;
    if (input.Description !== undefined) rule.Description = input.Description;
    if (input.RoleArn !== undefined) rule.RoleArn = input.RoleArn;
    this.rules.set(key, rule);
    if (pattern) this.patterns.set(key, pattern);
    else this.patterns.delete(key);
    this.changed();
    return { RuleArn: rule.Arn };
  }

  describeRule(input: { Name?: string; EventBusName?: string }): Omit<Rule, 'Targets' | 'CreatedAt'> & {
    CreatedBy: string;
  } {
    const rule = this.requireRule(this.ruleName(input.Name), input.EventBusName);
    const { Targets: _targets, CreatedAt: _createdAt, ...rest } = rule;
    return { ...structuredClone(rest), CreatedBy: this.options.accountId };
  }

  deleteRule(input: { Name?: string; EventBusName?: string; Force?: boolean }): void {
    const name = this.ruleName(input.Name);
    const key = ruleKey(this.busName(input.EventBusName), name);
    const rule = this.rules.get(key);
    if (!rule) return; // EventBridge treats deleting a missing rule as success.
    if (rule.Targets.length > 0) {
      throw new EventsError('ValidationException', "Rule can't be deleted since it has targets.");
    }
    this.rules.delete(key);
    this.patterns.delete(key);
    this.changed();
  }

  listRules(input: { NamePrefix?: string; EventBusName?: string; Limit?: number; NextToken?: string }): {
    Rules: Omit<Rule, 'Targets' | 'CreatedAt'>[];
    NextToken?: string;
  } {
    const bus = this.busName(input.EventBusName);
    const limit = input.Limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new EventsError('ValidationException', `Limit must be between 1 and 100, got ${input.Limit}`);
    }
    const start = input.NextToken ? decodeToken(input.NextToken) : 0;
    const matching = [...this.rules.values()]
      .filter((rule) => rule.EventBusName === bus && rule.Name.startsWith(input.NamePrefix ?? ''))
      .sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
    const page = matching
      .slice(start, start + limit)
      .map(({ Targets: _t, CreatedAt: _c, ...rest }) => structuredClone(rest));
    return start + limit < matching.length
      ? { Rules: page, NextToken: Buffer.from(String(start + limit)).toString('base64url') }
      : { Rules: page };
  }

  putTargets(input: { Rule?: string; EventBusName?: string; Targets?: RuleTarget[] }): {
    FailedEntryCount: number;
    FailedEntries: { TargetId: string; ErrorCode: string; ErrorMessage: string }[];
  } {
    const rule = this.requireRule(this.ruleName(input.Rule), input.EventBusName);
    const targets = input.Targets ?? [];
    if (targets.length < 1 || targets.length > 10) {
      throw new EventsError(
        'ValidationException',
        `Targets must hold 1 to 10 entries, got ${targets.length}`,
      );
    }
    for (const target of targets) {
      if (typeof target.Id !== 'string' || !TARGET_ID.test(target.Id)) {
        throw new EventsError(
          'ValidationException',
          `Target Id '${target.Id}' must be 1-64 characters of [.-_A-Za-z0-9]`,
        );
      }
      if (typeof target.Arn !== 'string' || !target.Arn.startsWith('arn:')) {
        throw new EventsError(
          'ValidationException',
          `Target ${target.Id}: Arn '${target.Arn}' is not an ARN`,
        );
      }
      try {
        validateTargetInput(target);
      } catch (error) {
        if (error instanceof TargetInputError) throw new EventsError('ValidationException', error.message);
        throw error;
      }
    }
    const byId = new Map(rule.Targets.map((t) => [t.Id, t]));
    for (const target of targets) byId.set(target.Id, structuredClone(target));
    if (byId.size > MAX_TARGETS_PER_RULE) {
      throw new EventsError(
        'LimitExceededException',
        `A rule can have at most ${MAX_TARGETS_PER_RULE} targets; ${rule.Name} would have ${byId.size}.`,
      );
    }
    rule.Targets = [...byId.values()];
    this.changed();
    return { FailedEntryCount: 0, FailedEntries: [] };
  }

  removeTargets(input: { Rule?: string; EventBusName?: string; Ids?: string[] }): {
    FailedEntryCount: number;
    FailedEntries: { TargetId: string; ErrorCode: string; ErrorMessage: string }[];
  } {
    const rule = this.requireRule(this.ruleName(input.Rule), input.EventBusName);
    const ids = input.Ids ?? [];
    if (ids.length < 1) throw new EventsError('ValidationException', 'Ids must hold at least one target id');
    rule.Targets = rule.Targets.filter((t) => !ids.includes(t.Id));
    this.changed();
    return { FailedEntryCount: 0, FailedEntries: [] };
  }

  listTargetsByRule(input: { Rule?: string; EventBusName?: string }): { Targets: RuleTarget[] } {
    const rule = this.requireRule(this.ruleName(input.Rule), input.EventBusName);
    return { Targets: structuredClone(rule.Targets) };
  }

  putEvents(input: { Entries?: PutEventsRequestEntry[] }): {
    FailedEntryCount: number;
    Entries: PutEventsResultEntry[];
  } {
    const entries = input.Entries ?? [];
    if (entries.length < 1 || entries.length > 10) {
      throw new EventsError('ValidationException', `Entries must hold 1 to 10 events, got ${entries.length}`);
    }
    const results = entries.map((entry): PutEventsResultEntry => {
      const problem = entryProblem(entry);
      if (problem) return problem;
      let bus: string;
      try {
        bus = this.busName(entry.EventBusName);
      } catch (error) {
        return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: (error as Error).message };
      }
      const event: EventBridgeEvent = {
        version: '0',
        id: this.options.newEventId(),
        'detail-type': entry.DetailType!,
        source: entry.Source!,
        account: this.options.accountId,
        time: eventTime(entryTime(entry.Time) ?? this.options.clock()),
        region: this.options.region,
        resources: entry.Resources ?? [],
        detail: JSON.parse(entry.Detail!),
      };
      this.route(event, bus);
      return { EventId: event.id };
    });
    return { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results };
  }

  snapshot(): EventBusSnapshot {
    return { rules: this.listAllRules() };
  }

  restore(snapshot: EventBusSnapshot): void {
    this.rules.clear();
    this.patterns.clear();
    for (const rule of snapshot.rules) {
      const key = ruleKey(rule.EventBusName, rule.Name);
      this.rules.set(key, structuredClone(rule));
      if (rule.EventPattern) this.patterns.set(key, compileEventPattern(rule.EventPattern));
    }
  }

  // ---- internals -----------------------------------------------------------------------

  private route(event: EventBridgeEvent, bus: string): void {
    for (const listener of this.eventListeners) this.defer(() => this.callSafely(() => listener(event)));
    const deliveries: EventDelivery[] = [];
    for (const [key, rule] of this.rules) {
      if (rule.EventBusName !== bus || rule.State === 'DISABLED') continue;
      const pattern = this.patterns.get(key);
      if (!pattern?.(event)) continue;
      for (const target of rule.Targets) deliveries.push(this.delivery(rule, target, event));
    }
    this.dispatch(deliveries);
  }

  private delivery(rule: Rule, target: RuleTarget, event: EventBridgeEvent): EventDelivery {
    return {
      rule: { name: rule.Name, arn: rule.Arn, eventBusName: rule.EventBusName },
      target: structuredClone(target),
      event,
      input: targetInput(target, event, { name: rule.Name, arn: rule.Arn }),
    };
  }

  private dispatch(deliveries: readonly EventDelivery[]): void {
    for (const delivery of deliveries) {
      for (const listener of this.deliveryListeners) {
        this.defer(() => this.callSafely(() => listener(delivery)));
      }
    }
  }

  private callSafely(call: () => void | Promise<void>): void {
    const report =
      this.options.onListenerError ??
      ((error) => console.error('[local-endpoint] event listener failed:', error));
    try {
      const result = call();
      if (result && typeof result.then === 'function') result.then(undefined, report);
    } catch (error) {
      report(error);
    }
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  private ruleName(name: string | undefined): string {
    if (!name || !RULE_NAME.test(name)) {
      throw new EventsError(
        'ValidationException',
        `Rule name '${name ?? ''}' must be 1-64 characters of [.-_A-Za-z0-9]`,
      );
    }
    return name;
  }

  /** Accepts a bus name or ARN; only the default bus exists locally. */
  private busName(nameOrArn: string | undefined): string {
    const name = nameOrArn?.startsWith('arn:')
      ? nameOrArn.slice(nameOrArn.lastIndexOf('/') + 1)
      : (nameOrArn ?? DEFAULT_BUS);
    if (name !== DEFAULT_BUS) {
      throw new EventsError('ResourceNotFoundException', `Event bus ${name} does not exist.`);
    }
    return name;
  }

  private requireRule(name: string, eventBusName: string | undefined): Rule {
    const bus = this.busName(eventBusName);
    const rule = this.rules.get(ruleKey(bus, name));
    if (!rule)
      throw new EventsError('ResourceNotFoundException', `Rule ${name} does not exist on EventBus ${bus}.`);
    return rule;
  }

  private ruleArn(bus: string, name: string): string {
    const path = bus === DEFAULT_BUS ? name : `${bus}/${name}`;
    return `arn:aws:events:${this.options.region}:${this.options.accountId}:rule/${path}`;
  }
}

function ruleKey(bus: string, name: string): string {
  return `${bus}/${name}`;
}

function decodeToken(token: string): number {
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^\d+$/.test(decoded)) throw new EventsError('ValidationException', `Invalid NextToken '${token}'`);
  return Number(decoded);
}

function entryTime(time: number | string | undefined): number | undefined {
  if (time === undefined) return undefined;
  const ms = typeof time === 'number' ? time * 1000 : Date.parse(time);
  return Number.isFinite(ms) ? ms : undefined;
}

function entryProblem(entry: PutEventsRequestEntry): PutEventsResultEntry | undefined {
  for (const field of ['Source', 'DetailType', 'Detail'] as const) {
    if (typeof entry[field] !== 'string' || entry[field] === '') {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${field} is not valid. Reason: ${field} is a required argument.`,
      };
    }
  }
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail!);
  } catch {
    detail = undefined;
  }
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  }
  return undefined;
}
