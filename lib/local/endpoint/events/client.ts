import { type Credentials, signRequest } from '../sigv4.ts';
import type { PutEventsRequestEntry, PutEventsResultEntry, RuleTarget } from './types.ts';

/**
 * A minimal EventBridge client (JSON 1.1 over fetch, SigV4-signed) for the operations the
 * local tooling needs, because @aws-sdk/client-eventbridge is not a dependency. Errors are
 * thrown with `name` set to the service's error code, as SDK v3 does.
 */
export interface EventBridgeClientOptions {
  endpoint: string;
  region: string;
  credentials: Credentials;
}

export class EventBridgeApiError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

export interface RuleSummary {
  Name: string;
  Arn: string;
  EventBusName: string;
  EventPattern?: string;
  ScheduleExpression?: string;
  State: string;
  Description?: string;
  RoleArn?: string;
}

interface FailedTargets {
  FailedEntryCount: number;
  FailedEntries: { TargetId?: string; ErrorCode?: string; ErrorMessage?: string }[];
}

export class EventBridgeJsonClient {
  constructor(private readonly options: EventBridgeClientOptions) {}

  putRule(input: {
    Name: string;
    EventBusName?: string;
    ScheduleExpression?: string;
    EventPattern?: string;
    State?: string;
    Description?: string;
    RoleArn?: string;
  }): Promise<{ RuleArn: string }> {
    return this.call('PutRule', input);
  }

  describeRule(input: {
    Name: string;
    EventBusName?: string;
  }): Promise<RuleSummary & { CreatedBy?: string }> {
    return this.call('DescribeRule', input);
  }

  async deleteRule(input: { Name: string; EventBusName?: string; Force?: boolean }): Promise<void> {
    await this.call('DeleteRule', input);
  }

  listRules(
    input: { NamePrefix?: string; EventBusName?: string; Limit?: number; NextToken?: string } = {},
  ): Promise<{ Rules: RuleSummary[]; NextToken?: string }> {
    return this.call('ListRules', input);
  }

  putTargets(input: { Rule: string; EventBusName?: string; Targets: RuleTarget[] }): Promise<FailedTargets> {
    return this.call('PutTargets', input);
  }

  removeTargets(input: { Rule: string; EventBusName?: string; Ids: string[] }): Promise<FailedTargets> {
    return this.call('RemoveTargets', input);
  }

  listTargetsByRule(input: { Rule: string; EventBusName?: string }): Promise<{ Targets: RuleTarget[] }> {
    return this.call('ListTargetsByRule', input);
  }

  putEvents(input: {
    Entries: PutEventsRequestEntry[];
  }): Promise<{ FailedEntryCount: number; Entries: PutEventsResultEntry[] }> {
    return this.call('PutEvents', input);
  }

  private async call<T>(operation: string, input: unknown): Promise<T> {
    const url = new URL(this.options.endpoint);
    const body = JSON.stringify(input);
    const headers = signRequest(
      {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSEvents.${operation}` },
        body,
      },
      {
        credentials: this.options.credentials,
        region: this.options.region,
        service: 'events',
        now: new Date(),
      },
    );
    // fetch sets Host itself from the URL (same value we signed).
    const { host: _host, ...sendHeaders } = headers;
    const response = await fetch(url, { method: 'POST', headers: sendHeaders, body });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      throw new EventBridgeApiError(
        'SerializationException',
        `EventBridge ${operation}: non-JSON response (HTTP ${response.status})`,
        response.status,
      );
    }
    if (!response.ok) {
      const code = String(parsed.__type ?? response.headers.get('x-amzn-errortype') ?? 'UnknownError')
        .split('#')
        .at(-1)!;
      const message = String(parsed.message ?? parsed.Message ?? `HTTP ${response.status}`);
      throw new EventBridgeApiError(code.split(':')[0]!, message, response.status);
    }
    return parsed as T;
  }
}
