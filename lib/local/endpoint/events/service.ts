import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody, sendJson } from '../http-util.ts';
import type { LocalEventBus } from './bus.ts';
import { EventsError } from './types.ts';

/**
 * EventBridge over HTTP: AWS JSON 1.1, `X-Amz-Target: AWSEvents.<Operation>`, errors as
 * `{"__type": "<Code>", "message": …}` which the SDK maps to exception names.
 */
const CONTENT_TYPE = 'application/x-amz-json-1.1';

type Operation = (bus: LocalEventBus, input: Record<string, never>) => unknown;

const OPERATIONS: Record<string, Operation> = {
  PutRule: (bus, input) => bus.putRule(input),
  DescribeRule: (bus, input) => bus.describeRule(input),
  DeleteRule: (bus, input) => {
    bus.deleteRule(input);
    return {};
  },
  ListRules: (bus, input) => bus.listRules(input),
  PutTargets: (bus, input) => bus.putTargets(input),
  RemoveTargets: (bus, input) => bus.removeTargets(input),
  ListTargetsByRule: (bus, input) => bus.listTargetsByRule(input),
  PutEvents: (bus, input) => bus.putEvents(input),
};

export const SUPPORTED_EVENTS_OPERATIONS = Object.keys(OPERATIONS);

export async function handleEventsRequest(bus: LocalEventBus, req: IncomingMessage, res: ServerResponse) {
  const target = String(req.headers['x-amz-target'] ?? '');
  const operation = target.startsWith('AWSEvents.') ? target.slice('AWSEvents.'.length) : '';
  try {
    const handler = OPERATIONS[operation];
    if (!handler) {
      throw new EventsError(
        'UnknownOperationException',
        `The local EventBridge shim does not implement '${target || '(no X-Amz-Target)'}'; supported: ${SUPPORTED_EVENTS_OPERATIONS.join(', ')}`,
      );
    }
    const body = await readBody(req);
    let input: unknown;
    try {
      input = body.trim() === '' ? {} : JSON.parse(body);
    } catch {
      throw new EventsError('SerializationException', 'The request body is not valid JSON');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new EventsError('SerializationException', 'The request body must be a JSON object');
    }
    sendJson(res, 200, handler(bus, input as Record<string, never>), CONTENT_TYPE);
  } catch (error) {
    if (error instanceof EventsError) {
      sendJson(res, error.statusCode, { __type: error.code, message: error.message }, CONTENT_TYPE);
    } else if (error instanceof BodyTooLargeError) {
      sendJson(res, 413, { __type: 'RequestEntityTooLarge', message: error.message }, CONTENT_TYPE);
    } else {
      sendJson(res, 500, { __type: 'InternalException', message: String(error) }, CONTENT_TYPE);
    }
  }
}
