/** EventBridge shapes, spelled as on the wire (PascalCase API members, kebab-case event fields). */

export type RuleState = 'ENABLED' | 'DISABLED' | 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS';

export interface InputTransformer {
  InputPathsMap?: Record<string, string>;
  InputTemplate: string;
}

export interface RuleTarget {
  Id: string;
  Arn: string;
  RoleArn?: string;
  Input?: string;
  InputPath?: string;
  InputTransformer?: InputTransformer;
  SqsParameters?: { MessageGroupId?: string };
  RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  DeadLetterConfig?: { Arn?: string };
}

export interface Rule {
  Name: string;
  Arn: string;
  EventBusName: string;
  EventPattern?: string;
  ScheduleExpression?: string;
  State: RuleState;
  Description?: string;
  RoleArn?: string;
  /** Epoch ms; rate schedules count their periods from here. */
  CreatedAt: number;
  Targets: RuleTarget[];
}

export interface EventBridgeEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

/** One event handed to one target of one rule; what the local Lambda runner consumes. */
export interface EventDelivery {
  rule: { name: string; arn: string; eventBusName: string };
  target: RuleTarget;
  event: EventBridgeEvent;
  /** The payload the target receives (after Input / InputPath / InputTransformer). */
  input: unknown;
}

export interface PutEventsRequestEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  Resources?: string[];
  /** Epoch seconds (JSON 1.1 timestamps) or an ISO string. */
  Time?: number | string;
  EventBusName?: string;
  TraceHeader?: string;
}

export interface PutEventsResultEntry {
  EventId?: string;
  ErrorCode?: string;
  ErrorMessage?: string;
}

export class EventsError extends Error {
  override readonly name = 'EventsError';
  constructor(
    readonly code: string,
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }
}
