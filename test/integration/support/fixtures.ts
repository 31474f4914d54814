/** Requests and messages the integration tests send. */

import type { Message } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ENV } from '../../../lib/aws/environment.ts';
import { pendingHostItem } from '../../../lib/aws/round/inventory.ts';
import type { RoundReport } from '../../../lib/aws/round/run-round.ts';
import { LOCAL_HOST_ROLE_ID } from '../../../lib/local/endpoint/sqs-sender.ts';
import {
  type ApiRequest,
  apiGatewayEvent,
  scheduledEvent,
  sqsEvent,
} from '../../../lib/local/runner/index.ts';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';
import { ACCOUNT, type ControlPlane, type ControlPlaneOptions, REGION } from './local-stack.ts';

/**
 * A control plane for tests that admit their own hosts and run real agents: fifo (a job gets exactly the GPUs it
 * asks for, so its shape stays put), no launches (budget 0), hosts lost after `heartbeatTimeoutSeconds` of silence.
 */
export const fifoWithoutLaunches = (heartbeatTimeoutSeconds: number): ControlPlaneOptions => ({
  runner: {
    envOverrides: {
      round: {
        [ENV.policy]: 'fifo',
        [ENV.fleet]: JSON.stringify({
          capacityType: 'on-demand',
          budgetPerHour: 0,
          maxInstances: 0,
          idleCooldownSeconds: 3600,
          heartbeatTimeoutSeconds,
          launchTemplates: [],
        }),
      },
    },
  },
});

export const jobDocument = (overrides: Record<string, unknown> = {}) => ({
  model: 'resnet50',
  batchSize: 64,
  gpus: 2,
  iterations: 1000,
  command: ['python3', '-m', 'train'],
  ...overrides,
});

export interface ApiResponse {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  readonly body: any;
}

export const callApi = async (
  cp: ControlPlane,
  request: Omit<ApiRequest, 'principal'> & { principal?: string },
): Promise<ApiResponse> => {
  const result = await cp.runner.invoke<APIGatewayProxyResult>(
    'api',
    apiGatewayEvent({ ...request, principal: request.principal ?? 'alice' }),
  );
  return { status: result.statusCode, body: JSON.parse(result.body) };
};

export const submit = (cp: ControlPlane, document: unknown, principal = 'alice') =>
  callApi(cp, {
    method: 'POST',
    resource: '/jobs',
    body: typeof document === 'string' ? document : JSON.stringify(document),
    principal,
  });

/** The SQS SenderId of a host's instance-role session (what SQS stamps on the host's own messages). */
export const hostSender = (hostId: string): string => `${LOCAL_HOST_ROLE_ID}:${hostId}`;

/** Telemetry records as the queue delivers them: each sent by the host its `hostId` names, unless `sender` says. */
export const telemetryMessages = (messages: readonly unknown[], sender?: string): Message[] =>
  messages.map((m, i) => ({
    MessageId: `t-${Date.now()}-${i}-${Math.random()}`,
    ReceiptHandle: 'r',
    Body: typeof m === 'string' ? m : JSON.stringify(m),
    Attributes: {
      SenderId: sender ?? hostSender(String((m as { hostId?: unknown }).hostId ?? 'unknown')),
    },
  }));

/**
 * Hosts the fleet launched, recorded as pending as the round records its launches (and adopts instances tagged
 * for the cluster): only such hosts may register. Not EC2 instances of the test, so without a launch time or a
 * price (they neither vanish from the instance listing nor count against the fleet's budget).
 */
export const admitHosts = async (cp: ControlPlane, ...hostIds: string[]): Promise<void> => {
  for (const hostId of hostIds) {
    const {
      launchedAt: _none,
      pricePerHour: _free,
      ...item
    } = pendingHostItem(
      { instanceId: hostId, instanceType: 'g5.12xlarge', state: 'running', lifecycle: 'on-demand' },
      Date.now() / 1000,
    );
    await cp.hosts.createIfAbsent(item);
  }
};

/** A heartbeat of a host at `at` (epoch seconds) reporting `jobs`, as the agent sends it. */
export const heartbeat = (hostId: string, at: number, jobs: unknown[] = []) => ({
  type: 'heartbeat',
  hostId,
  at,
  appliedGeneration: null,
  draining: false,
  evacuating: null,
  gpus: [],
  jobs,
});

/** A registration of a host with `gpus` GPUs of an A10G-like product, as the agent sends it. */
export const register = (
  hostId: string,
  gpus = 4,
  overrides: Partial<TelemetryMessage> = {},
): TelemetryMessage =>
  ({
    type: 'register',
    hostId,
    at: Date.now() / 1000,
    instanceId: null,
    instanceType: 'g5.12xlarge',
    availabilityZone: 'us-east-1a',
    gpus: Array.from({ length: gpus }, (_, index) => ({
      index,
      uuid: `GPU-${hostId}-${index}`,
      name: 'NVIDIA A10G',
      memoryTotalMiB: 23028,
    })),
    topology: { rack: 'rack-1', network: 'net-1', nodes: ['net-1', 'mid-1', 'rack-1'] },
    agentVersion: 'test',
    ...overrides,
  }) as TelemetryMessage;

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export const eventually = async <T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 15_000,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Every message currently in a queue, received and deleted (FIFO groups release one batch at a time). */
export const drainQueue = async (
  cp: ControlPlane,
  queueUrl: string,
): Promise<{ body: string; attributes: Record<string, string | undefined> }[]> => {
  const { DeleteMessageCommand, ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
  const all: { body: string; attributes: Record<string, string | undefined> }[] = [];
  for (;;) {
    const { Messages } = await cp.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
        VisibilityTimeout: 30,
      }),
    );
    if (!Messages || Messages.length === 0) return all;
    for (const m of Messages) {
      all.push({
        body: m.Body ?? '',
        attributes: Object.fromEntries(
          Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue]),
        ),
      });
      await cp.clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }),
      );
    }
  }
};

/** One scheduled round, as the EventBridge schedule starts it. */
export const invokeRound = (cp: ControlPlane) =>
  cp.runner.invoke<RoundReport>(
    'round',
    scheduledEvent(`arn:aws:events:${REGION}:${ACCOUNT}:rule/round`, REGION, ACCOUNT),
  );

/** One batch of telemetry messages, each sent by the host it names unless it says otherwise. */
export const sendTelemetry = (cp: ControlPlane, ...messages: unknown[]) =>
  cp.runner.invoke(
    'telemetry',
    sqsEvent(telemetryMessages(messages), `arn:aws:sqs:${REGION}:${ACCOUNT}:telemetry`, REGION),
  );
