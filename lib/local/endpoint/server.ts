import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { AwsChunkedDecoder, decodedHeaders, isAwsChunked } from './aws-chunked.ts';
import { type DynamoDbLocal, runningDynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.ts';
import type { Ec2Snapshot } from './ec2/model.ts';
import { Ec2Service } from './ec2/service.ts';
import { DEFAULT_TOPOLOGY_LAYOUT, validateTopologyLayout } from './ec2/topology.ts';
import type { Instance, TopologyLayout } from './ec2/types.ts';
import { type EventBusSnapshot, LocalEventBus } from './events/bus.ts';
import { handleEventsRequest } from './events/service.ts';
import { createProxy } from './http-proxy.ts';
import { readBody, send, sendJson } from './http-util.ts';
import { isServedService, routeRequest, type ServiceName } from './routing.ts';
import { guardS3Request } from './s3-authorization.ts';
import { accessKeyIdOf, type S3Server, startS3Server } from './s3-server.ts';
import { type QueueDefinition, SQS_ACCOUNT_ID, type SqsEmulator, startSqsEmulator } from './sqs-emulator.ts';
import { StateFile } from './state-file.ts';
import { LocalSts } from './sts.ts';
import { escapeXml } from './xml.ts';

/**
 * One LocalStack-style port for the AWS APIs Tessera uses: DynamoDB (real DynamoDB Local,
 * proxied), SQS (fauxqs, in-process), S3 (the s3rver server, proxied; path-style), and small EC2
 * and EventBridge shims. Requests are routed
 * by SigV4 credential scope, falling back to X-Amz-Target.
 */
export interface LocalEndpointOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  region?: string;
  /** Persist state here (DynamoDB data, S3 objects, EC2/EventBridge state, SQS queue definitions); in memory when absent. */
  dataDir?: string;
  ec2?: {
    /** pending → running delay (ms). */
    pendingMs?: number;
    /** shutting-down → terminated delay (ms). */
    shuttingDownMs?: number;
    terminatedRetentionMs?: number;
    topology?: Partial<TopologyLayout>;
    /** Max live instances per instance type; launches beyond it fail with InsufficientInstanceCapacity. */
    capacity?: Record<string, number>;
    /** First two octets of private IPs (default `10.0`; `127.0` makes them loopback addresses). */
    privateIpPrefix?: string;
  };
  dynamodb?: {
    startTimeoutMs?: number;
    /**
     * Use this DynamoDB Local, already running and shared with other endpoints (the test runner starts one for all
     * control-plane test files), instead of starting one; `stop()` leaves it running. Not with `dataDir`.
     */
    running?: { port: number; pid: number };
    /**
     * Fault injection: the share (0-1) of DynamoDB requests answered with a throttling error
     * (ProvisionedThroughputExceededException, HTTP 400) instead of being served; changeable at run time through
     * `LocalEndpoint.setDynamoDbThrottleRate`. Decided by a seeded generator, so runs repeat.
     */
    throttleRate?: number;
    throttleSeed?: number;
  };
  /** The clock STS sessions expire by (epoch ms); tests move it. */
  sts?: { clock?: () => number };
  /** S3 rules: `hostRoleRules` holds local host credentials to a GPU instance role's rights (s3-authorization.ts). */
  s3?: { hostRoleRules?: boolean };
  /** Diagnostic lines (startup, listener failures); silent by default. */
  log?: (line: string) => void;
}

export interface LocalEndpoint {
  readonly url: string;
  readonly port: number;
  readonly region: string;
  readonly accountId: string;
  /** The local EventBridge: `subscribe`, `onEvent`, `scheduledRules`, `fireSchedule`, and the API operations. */
  readonly events: LocalEventBus;
  /** In-process view of the EC2 shim. */
  readonly ec2: {
    instances(): Instance[];
    interruptSpot(instanceId: string, options?: { noticeMs?: number }): void;
  };
  readonly dynamodbLocal: { readonly port: number; readonly pid: number };
  /** Sets the share of DynamoDB requests to throttle (fault injection); returns how many were throttled so far. */
  setDynamoDbThrottleRate(rate: number): number;
  stop(): Promise<void>;
}

const SQS_MUTATIONS = new Set(['CreateQueue', 'DeleteQueue', 'SetQueueAttributes', 'TagQueue', 'UntagQueue']);

export async function startLocalEndpoint(options: LocalEndpointOptions = {}): Promise<LocalEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const region = options.region ?? 'us-east-1';
  const requestedPort = options.port ?? 4566;
  if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535) {
    throw new RangeError(`port must be an integer 0-65535, got ${options.port}`);
  }
  if (options.dynamodb?.running && options.dataDir) {
    throw new RangeError('a running DynamoDB Local keeps no data in dataDir: pass one or the other');
  }
  const log = options.log ?? (() => {});
  const accountId = SQS_ACCOUNT_ID;
  let url = '';

  const files = options.dataDir
    ? {
        ec2: new StateFile<Ec2Snapshot>(join(options.dataDir, 'ec2.json')),
        events: new StateFile<EventBusSnapshot>(join(options.dataDir, 'events.json')),
        sqs: new StateFile<QueueDefinition[]>(join(options.dataDir, 'sqs-queues.json')),
      }
    : undefined;

  const bus = new LocalEventBus({
    region,
    accountId,
    clock: Date.now,
    newEventId: randomUUID,
    onListenerError: (error) =>
      log(`event listener failed: ${error instanceof Error ? error.stack : String(error)}`),
  });
  const ec2 = new Ec2Service({
    region,
    accountId,
    pendingMs: options.ec2?.pendingMs ?? 500,
    shuttingDownMs: options.ec2?.shuttingDownMs ?? 500,
    terminatedRetentionMs: options.ec2?.terminatedRetentionMs ?? 3_600_000,
    topology: validateTopologyLayout({ ...DEFAULT_TOPOLOGY_LAYOUT, ...options.ec2?.topology }),
    ...(options.ec2?.capacity ? { capacity: options.ec2.capacity } : {}),
    ...(options.ec2?.privateIpPrefix ? { privateIpPrefix: options.ec2.privateIpPrefix } : {}),
    bus,
    onChange: () => files?.ec2.save(ec2.model.snapshot()),
  });
  if (files) {
    // Rules first: restoring EC2 may publish state changes that fell due while we were down.
    const eventsState = files.events.load();
    if (eventsState) bus.restore(eventsState);
    const ec2State = files.ec2.load();
    if (ec2State) ec2.restore(ec2State);
    bus.onChange(() => files.events.save(bus.snapshot()));
  }

  let dynamodb: DynamoDbLocal | undefined;
  let sqs: SqsEmulator | undefined;
  let s3: S3Server | undefined;
  const stopServices = async () => {
    ec2.stop();
    await Promise.allSettled([dynamodb?.stop(), sqs?.stop(), s3?.stop()]);
  };
  const running = options.dynamodb?.running;
  const started = await Promise.allSettled([
    (running
      ? Promise.resolve(runningDynamoDbLocal(running))
      : startDynamoDbLocal({
          ...(options.dataDir ? { dataDir: join(options.dataDir, 'dynamodb') } : {}),
          ...(options.dynamodb?.startTimeoutMs ? { startTimeoutMs: options.dynamodb.startTimeoutMs } : {}),
        })
    ).then((d) => {
      dynamodb = d;
    }),
    startSqsEmulator({ endpointUrl: () => url, region }).then((s) => {
      sqs = s;
    }),
    startS3Server(options.dataDir ? { dataDir: join(options.dataDir, 's3') } : {}).then((s) => {
      s3 = s;
    }),
  ]);
  const failure = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure || !dynamodb || !sqs || !s3) {
    await stopServices();
    throw failure?.reason ?? new Error('local endpoint services failed to start');
  }
  const ddb: DynamoDbLocal = dynamodb;
  const sqsEmulator: SqsEmulator = sqs;
  const dynamoProxy = createProxy(ddb.port);
  const s3Server: S3Server = s3;
  const s3Proxy = createProxy(s3.port);

  let throttleRate = options.dynamodb?.throttleRate ?? 0;
  let throttleState = (options.dynamodb?.throttleSeed ?? 1) >>> 0 || 1;
  let throttled = 0;
  /** xorshift32: a small seeded generator, enough to pick which requests fail. */
  const nextUniform = () => {
    throttleState ^= throttleState << 13;
    throttleState ^= throttleState >>> 17;
    throttleState ^= throttleState << 5;
    return (throttleState >>> 0) / 2 ** 32;
  };
  const sts = new LocalSts(accountId, options.sts?.clock);
  const handlers: Record<ServiceName, (req: IncomingMessage, res: ServerResponse) => void | Promise<void>> = {
    dynamodb: (req, res) => {
      if (throttleRate > 0 && nextUniform() < throttleRate) {
        throttled++;
        req.resume();
        sendJson(
          res,
          400,
          {
            __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
            message: 'The level of configured provisioned throughput for the table was exceeded (injected)',
          },
          'application/x-amz-json-1.0',
        );
        return;
      }
      return dynamoProxy.forward(req, res, (error) => {
        if (!res.headersSent) {
          sendJson(res, 502, {
            __type: 'ServiceUnavailable',
            message: `DynamoDB Local unreachable: ${error.message}`,
          });
        } else {
          res.destroy(error);
        }
      });
    },
    sqs: (req, res) => {
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      if (files && SQS_MUTATIONS.has(action)) {
        res.on('finish', () => files.sqs.save(sqsEmulator.queueDefinitions()));
      }
      sqsEmulator.handle(req, res);
    },
    sts: async (req, res) => {
      const reply = sts.handle(await readBody(req), accessKeyIdOf(req.headers.authorization, req.url));
      send(res, reply.status, 'text/xml', reply.body);
    },
    ec2: (req, res) => ec2.handle(req, res),
    events: (req, res) => handleEventsRequest(bus, req, res),
    s3: async (req, res) => {
      const accessKeyId = accessKeyIdOf(req.headers.authorization, req.url);
      if (accessKeyId) s3Server.allowAccessKey(accessKeyId);
      // Vended credentials are held to their session policy (s3-authorization.ts).
      const guarded = await guardS3Request(req, sts, options.s3);
      if (guarded.verdict && !guarded.verdict.allowed) {
        req.resume();
        send(
          res,
          guarded.verdict.status,
          'application/xml',
          s3Error(guarded.verdict.code, guarded.verdict.message),
        );
        return;
      }
      const decoded = guarded.body
        ? { headers: req.headers, body: Readable.from([guarded.body]) }
        : isAwsChunked(req.headers)
          ? { headers: decodedHeaders(req.headers), body: req.pipe(new AwsChunkedDecoder()) }
          : undefined;
      s3Proxy.forward(
        req,
        res,
        (error) => {
          if (!res.headersSent) send(res, 502, 'application/xml', s3Unreachable(error));
          else res.destroy(error);
        },
        decoded,
      );
    },
  };

  const server: Server = createServer((req, res) => {
    void dispatch(req, res).catch((error) => {
      log(`request failed: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { __type: 'InternalFailure', message: String(error) });
      else res.destroy();
    });
  });

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/_localstack/health') {
      sendJson(res, 200, {
        services: {
          dynamodb: ddb.isRunning() ? 'running' : 'error',
          sqs: 'running',
          ec2: 'running',
          events: 'running',
          s3: 'running',
          sts: 'running',
        },
        edition: 'tessera-local',
      });
      return;
    }
    const route = routeRequest(req.headers, req.url);
    if (!route) {
      unknownService(
        req,
        res,
        'MissingServiceIdentification',
        'Cannot tell which AWS service this request is for: sign it with SigV4 (credential scope names the service) or send X-Amz-Target',
      );
      return;
    }
    if (!isServedService(route.service)) {
      unknownService(
        req,
        res,
        'UnsupportedService',
        `The local endpoint does not emulate service '${route.service}' (from ${route.via}); it serves dynamodb, sqs, ec2, events, s3, sts`,
      );
      return;
    }
    await handlers[route.service](req, res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(requestedPort, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: NodeJS.ErrnoException) => {
    await stopServices();
    dynamoProxy.close();
    s3Proxy.close();
    throw error.code === 'EADDRINUSE'
      ? new Error(
          `port ${requestedPort} on ${host} is already in use (another LocalStack or endpoint running?)`,
        )
      : error;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : requestedPort;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `http://${urlHost}:${port}`;
  // Queue URLs embed the endpoint's address, so saved queues come back only once it is known.
  const savedQueues = files?.sqs.load();
  if (savedQueues) sqsEmulator.restoreQueues(savedQueues);
  log(`local AWS endpoint on ${url} (DynamoDB Local on 127.0.0.1:${ddb.port}, pid ${ddb.pid})`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopServices();
      dynamoProxy.close();
      s3Proxy.close();
      await closed;
      if (files) {
        files.ec2.save(ec2.model.snapshot());
        files.events.save(bus.snapshot());
        files.sqs.save(sqsEmulator.queueDefinitions());
      }
    })();
    return stopping;
  };

  return {
    url,
    port,
    region,
    accountId,
    events: bus,
    ec2: {
      instances: () => ec2.instances(),
      interruptSpot: (instanceId, opts) => ec2.interruptSpot(instanceId, opts),
    },
    dynamodbLocal: { port: ddb.port, pid: ddb.pid },
    setDynamoDbThrottleRate: (rate) => {
      throttleRate = rate;
      return throttled;
    },
    stop,
  };
}

function s3Error(code: string, message: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
    `<Message>${escapeXml(message)}</Message><RequestId>${randomUUID()}</RequestId></Error>`
  );
}

function s3Unreachable(error: Error): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code>` +
    `<Message>${escapeXml(`S3 server unreachable: ${error.message}`)}</Message></Error>`
  );
}

function unknownService(req: IncomingMessage, res: ServerResponse, code: string, message: string): void {
  req.resume();
  const contentType = String(req.headers['content-type'] ?? '');
  if (contentType.includes('json')) {
    sendJson(res, 400, { __type: code, message }, contentType.split(';')[0]);
    return;
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code>` +
    `<Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
  send(res, 400, 'text/xml;charset=UTF-8', xml);
}
