import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eventTime, type LocalEventBus } from '../events/bus.ts';
import { BodyTooLargeError, readBody, send } from '../http-util.ts';
import { parseQueryParams, type QueryNode, QueryParamError } from '../query-params.ts';
import { el, escapeXml, renderXml, type XmlContent } from '../xml.ts';
import { Ec2Error } from './errors.ts';
import { Ec2Model, type Ec2ModelConfig, type Ec2Snapshot } from './model.ts';
import {
  parseFilters,
  parseLaunchSettings,
  parseMaxResults,
  parseRunInstances,
  parseTagSpecifications,
  parseTags,
} from './requests.ts';
import {
  describeInstancesContent,
  describeInstanceTopologyContent,
  launchTemplateContent,
  reservationContent,
  terminateInstancesContent,
} from './responses.ts';
import type { Ec2Notification, Instance } from './types.ts';

/**
 * EC2 over HTTP (query protocol in, XML out) around the pure `Ec2Model`: owns the clock and
 * the timer that moves instances pending → running and shutting-down → terminated, and
 * publishes EC2 state-change / Spot interruption events to the local EventBridge.
 */
const NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

type Handler = (
  params: QueryNode,
  now: number,
) => { content: XmlContent; notifications?: Ec2Notification[]; mutated: boolean };

export interface Ec2ServiceOptions extends Ec2ModelConfig {
  bus: LocalEventBus;
  clock?: () => number;
  /** Called after any state change (used to persist state). */
  onChange?: () => void;
}

export class Ec2Service {
  readonly model: Ec2Model;
  private readonly clock: () => number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly handlers: Record<string, Handler>;

  constructor(private readonly options: Ec2ServiceOptions) {
    this.model = new Ec2Model(options);
    this.clock = options.clock ?? Date.now;
    const m = this.model;
    this.handlers = {
      RunInstances: (params, now) => {
        const { view, notifications } = m.runInstances(parseRunInstances(params), now);
        return { content: reservationContent(view, options.accountId), notifications, mutated: true };
      },
      TerminateInstances: (params, now) => {
        const { changes, notifications } = m.terminateInstances(params.texts('InstanceId'), now);
        return { content: terminateInstancesContent(changes), notifications, mutated: true };
      },
      DescribeInstances: (params) => {
        const page = m.describeInstances({
          instanceIds: params.texts('InstanceId'),
          filters: parseFilters(params),
          maxResults: parseMaxResults(params),
          nextToken: params.text('NextToken'),
        });
        return {
          content: describeInstancesContent(page.items, options.accountId, page.nextToken),
          mutated: false,
        };
      },
      DescribeInstanceTopology: (params) => {
        const page = m.describeInstanceTopology({
          instanceIds: params.texts('InstanceId'),
          filters: parseFilters(params),
          maxResults: parseMaxResults(params),
          nextToken: params.text('NextToken'),
        });
        return { content: describeInstanceTopologyContent(page.items, page.nextToken), mutated: false };
      },
      CreateLaunchTemplate: (params, now) => {
        const data = params.get('LaunchTemplateData');
        const template = m.createLaunchTemplate(
          {
            launchTemplateName: params.text('LaunchTemplateName'),
            data: data ? parseLaunchSettings(data) : undefined,
            tagSpecifications: parseTagSpecifications(params),
          },
          now,
        );
        return {
          content: el('launchTemplate', launchTemplateContent(template, options.accountId)),
          mutated: true,
        };
      },
      DescribeLaunchTemplates: (params) => {
        const templates = m.describeLaunchTemplates({
          ids: params.texts('LaunchTemplateId'),
          names: params.texts('LaunchTemplateName'),
          filters: parseFilters(params),
        });
        return {
          content: el(
            'launchTemplates',
            templates.map((t) => el('item', launchTemplateContent(t, options.accountId))),
          ),
          mutated: false,
        };
      },
      CreateTags: (params) => {
        m.createTags(params.texts('ResourceId'), parseTags(params));
        return { content: el('return', true), mutated: true };
      },
    };
  }

  get supportedActions(): string[] {
    return Object.keys(this.handlers);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    let action = '';
    try {
      const body = await readBody(req);
      const params = parseQueryParams(body);
      action = params.text('Action') ?? '';
      const handler = this.handlers[action];
      if (!handler) {
        throw new Ec2Error(
          'InvalidAction',
          `The action '${action || '(none)'}' is not valid for the local EC2 shim; supported: ${this.supportedActions.join(', ')}`,
        );
      }
      if (params.bool('DryRun')) {
        throw new Ec2Error('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
      }
      const now = this.clock();
      this.applyDue(now);
      const result = handler(params, now);
      this.publish(result.notifications ?? []);
      if (result.mutated) this.options.onChange?.();
      this.schedule();
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${NAMESPACE}">${renderXml(
        [el('requestId', requestId), result.content],
      )}</${action}Response>`;
      send(res, 200, 'text/xml;charset=UTF-8', xml);
    } catch (error) {
      const { code, message, status } = toEc2Error(error);
      const xml =
        `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${escapeXml(code)}</Code>` +
        `<Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
      send(res, status, 'text/xml;charset=UTF-8', xml);
    }
  }

  /** Load saved state and catch up with transitions that fell due meanwhile. */
  restore(snapshot: Ec2Snapshot): void {
    this.model.restore(snapshot);
    this.applyDue(this.clock());
    this.schedule();
  }

  /** In-process: every instance the shim knows (including recently terminated ones). */
  instances(): Instance[] {
    this.applyDue(this.clock());
    return this.model.listInstances();
  }

  /** In-process: send a Spot interruption warning now and shut the instance down after `noticeMs`. */
  interruptSpot(instanceId: string, options: { noticeMs?: number } = {}): void {
    const now = this.clock();
    this.applyDue(now);
    this.publish(this.model.interruptSpot(instanceId, now, options.noticeMs ?? 120_000));
    this.options.onChange?.();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private applyDue(now: number): void {
    const notifications = this.model.advance(now);
    if (notifications.length > 0) {
      this.publish(notifications);
      this.options.onChange?.();
    }
  }

  /** One timer for the earliest pending transition, so state moves even when nobody polls. */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const due = this.model.nextDueAt();
    if (due === undefined || this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.applyDue(this.clock());
        this.schedule();
      },
      Math.max(0, due - this.clock()),
    );
    this.timer.unref();
  }

  private publish(notifications: readonly Ec2Notification[]): void {
    const { region, accountId, bus } = this.options;
    for (const n of notifications) {
      const instanceArn = `arn:aws:ec2:${region}:${accountId}:instance/${n.instanceId}`;
      const time = eventTime(n.at);
      if (n.kind === 'state-change') {
        bus.publish({
          source: 'aws.ec2',
          'detail-type': 'EC2 Instance State-change Notification',
          resources: [instanceArn],
          detail: { 'instance-id': n.instanceId, state: n.state },
          time,
        });
      } else {
        bus.publish({
          source: 'aws.ec2',
          'detail-type': 'EC2 Spot Instance Interruption Warning',
          resources: [instanceArn],
          detail: { 'instance-id': n.instanceId, 'instance-action': n.instanceAction },
          time,
        });
      }
    }
  }
}

function toEc2Error(error: unknown): { code: string; message: string; status: number } {
  if (error instanceof Ec2Error)
    return { code: error.code, message: error.message, status: error.statusCode };
  if (error instanceof QueryParamError)
    return { code: 'InvalidParameterValue', message: error.message, status: 400 };
  if (error instanceof BodyTooLargeError)
    return { code: 'RequestEntityTooLarge', message: error.message, status: 413 };
  return { code: 'InternalError', message: `Local EC2 shim failure: ${String(error)}`, status: 500 };
}
