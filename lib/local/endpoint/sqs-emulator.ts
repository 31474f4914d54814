import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { readBody, sendJson } from './http-util.ts';
import { accessKeyOf, senderIdOfAccessKey, stampSendRequest, unstampReceiveResponse } from './sqs-sender.ts';

/**
 * SQS from `fauxqs` (pinned 1.9.2), run in-process without a socket of its own: its Fastify
 * app handles the raw request stream our server accepted. Two adjustments to its store:
 * - queue URLs are `<endpoint url>/<account>/<name>` — the endpoint's own host:port — rather
 *   than fauxqs's `sqs.<region>.localhost` host, which does not resolve here;
 * - a QueueUrl that names a known queue under another host spelling (`localhost` vs
 *   `127.0.0.1`, an old port after a restart) still finds it, as any host reaches a queue in AWS.
 * Sends and receives go through fauxqs's `inject` so that the sender identity can be carried (sqs-sender.ts).
 */
export const SQS_ACCOUNT_ID = '000000000000';

export interface QueueDefinition {
  name: string;
  attributes: Record<string, string>;
  tags: Record<string, string>;
}

export interface SqsEmulator {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Queue definitions (not messages), for persistence. */
  queueDefinitions(): QueueDefinition[];
  restoreQueues(definitions: readonly QueueDefinition[]): void;
  stop(): Promise<void>;
}

/** The parts of fauxqs's internal SqsStore/SqsQueue this module relies on. */
interface FauxqsQueue {
  name: string;
  url: string;
  arn: string;
  attributes: Record<string, string>;
  tags: Map<string, string>;
}

interface FauxqsSqsStore {
  region: string | undefined;
  buildQueueUrl(name: string, port: string, requestHost: string, region: string): string;
  getQueue(url: string): FauxqsQueue | undefined;
  getQueueByName(name: string): FauxqsQueue | undefined;
  deleteQueue(url: string): boolean;
  listQueues(): FauxqsQueue[];
  createQueue(
    name: string,
    url: string,
    arn: string,
    attributes?: Record<string, string>,
    tags?: Record<string, string>,
  ): FauxqsQueue;
}

interface InjectedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

interface FauxqsApp {
  inject(request: {
    method: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
    payload: string;
  }): PromiseLike<InjectedResponse>;
  ready(): PromiseLike<unknown>;
  close(): PromiseLike<unknown>;
  routing(req: IncomingMessage, res: ServerResponse): void;
}

interface FauxqsModule {
  buildApp(options: { logger: boolean; defaultRegion?: string; stores: Record<string, unknown> }): FauxqsApp;
}

async function loadFauxqs(): Promise<{
  buildApp: FauxqsModule['buildApp'];
  store: FauxqsSqsStore;
  others: Record<string, unknown>;
}> {
  let appUrl: string;
  try {
    appUrl = import.meta.resolve('fauxqs');
  } catch {
    throw new Error('SQS emulator not found: the npm package fauxqs is not installed (npm install)');
  }
  const internal = async <T>(path: string): Promise<T> => {
    try {
      return (await import(new URL(path, appUrl).href)) as T;
    } catch (error) {
      throw new Error(
        `fauxqs internals changed (${path}); this endpoint is written for fauxqs 1.9.x: ${error}`,
      );
    }
  };
  const fauxqs = (await import('fauxqs')) as unknown as FauxqsModule;
  const { SqsStore } = await internal<{ SqsStore: new () => FauxqsSqsStore }>('./sqs/sqsStore.js');
  const { SnsStore } = await internal<{ SnsStore: new () => unknown }>('./sns/snsStore.js');
  const { S3Store } = await internal<{ S3Store: new () => unknown }>('./s3/s3Store.js');
  return {
    buildApp: fauxqs.buildApp,
    store: new SqsStore(),
    others: { snsStore: new SnsStore(), s3Store: new S3Store() },
  };
}

function queueNameFromUrl(url: string): string | undefined {
  try {
    return new URL(url).pathname.split('/').filter(Boolean).at(-1);
  } catch {
    return undefined;
  }
}

const SENDER_ACTIONS = new Set([
  'AmazonSQS.SendMessage',
  'AmazonSQS.SendMessageBatch',
  'AmazonSQS.ReceiveMessage',
]);

export async function startSqsEmulator(options: {
  endpointUrl: () => string;
  region: string;
}): Promise<SqsEmulator> {
  const { buildApp, store, others } = await loadFauxqs();
  const queueUrl = (name: string) => `${options.endpointUrl()}/${SQS_ACCOUNT_ID}/${name}`;
  const arnOf = (name: string) => `arn:aws:sqs:${options.region}:${SQS_ACCOUNT_ID}:${name}`;

  store.buildQueueUrl = (name) => queueUrl(name);
  const exactQueue = store.getQueue.bind(store);
  store.getQueue = (url) => {
    const exact = exactQueue(url);
    if (exact) return exact;
    const name = queueNameFromUrl(url);
    return name === undefined ? undefined : store.getQueueByName(name);
  };
  const exactDelete = store.deleteQueue.bind(store);
  store.deleteQueue = (url) => exactDelete(store.getQueue(url)?.url ?? url);

  const app = buildApp({
    logger: false,
    defaultRegion: options.region,
    stores: { sqsStore: store, ...others },
  });
  await app.ready();

  /** A send or receive: relayed through `inject` with the sender identity stamped or restored. */
  const relayWithSender = async (req: IncomingMessage, res: ServerResponse, target: string) => {
    const body = await readBody(req);
    const senderId = senderIdOfAccessKey(accessKeyOf(req.headers) ?? 'anonymous');
    let payload = body;
    try {
      payload = stampSendRequest(target, body, senderId) ?? body;
    } catch {
      // not JSON: fauxqs answers with its own error
    }
    const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = req.headers;
    const response = await app.inject({
      method: req.method ?? 'POST',
      url: req.url ?? '/',
      headers,
      payload,
    });
    const text =
      target === 'AmazonSQS.ReceiveMessage' && response.statusCode === 200
        ? unstampReceiveResponse(response.body)
        : response.body;
    const out: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && name !== 'content-length' && name !== 'transfer-encoding') out[name] = value;
    }
    const bytes = Buffer.from(text, 'utf8');
    res.writeHead(response.statusCode, { ...out, 'content-length': bytes.length });
    res.end(bytes);
  };

  return {
    handle: (req, res) => {
      const target = String(req.headers['x-amz-target'] ?? '');
      if (!SENDER_ACTIONS.has(target)) return app.routing(req, res);
      relayWithSender(req, res, target).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { __type: 'InternalFailure', message: String(error) });
        else res.destroy();
      });
    },
    queueDefinitions: () =>
      store.listQueues().map((queue) => ({
        name: queue.name,
        attributes: { ...queue.attributes },
        tags: Object.fromEntries(queue.tags),
      })),
    restoreQueues: (definitions) => {
      for (const def of definitions) {
        if (!store.getQueueByName(def.name)) {
          store.createQueue(def.name, queueUrl(def.name), arnOf(def.name), def.attributes, def.tags);
        }
      }
    },
    stop: async () => {
      await app.close();
    },
  };
}
