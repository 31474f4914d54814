import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Request bodies of the shimmed APIs are small; refuse anything absurd rather than buffer it. */
export const MAX_SHIM_BODY_BYTES = 10 * 1024 * 1024;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

export async function readBody(req: IncomingMessage, limit = MAX_SHIM_BODY_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError(`request body exceeds ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  const payload = Buffer.from(body, 'utf8');
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': payload.length,
    'x-amzn-requestid': randomUUID(),
  });
  res.end(payload);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
): void {
  send(res, status, contentType, JSON.stringify(body));
}
