import {
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Forward a request to a loopback port unchanged (method, path, headers, body streamed both
 * ways). Headers go through as-is, Host included, because SigV4 signatures cover them.
 */
export function createProxy(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  /** `body` and `headers` replace the request's own when the body is rewritten (e.g. decoded) on the way. */
  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    onError: (error: Error) => void,
    rewritten?: { headers: IncomingHttpHeaders; body: Readable },
  ): void => {
    const headers = rewritten?.headers ?? req.headers;
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, upstreamRes.rawHeaders);
        upstreamRes.pipe(res);
      },
    );
    upstream.on('error', onError);
    // If the client goes away, stop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (rewritten) {
      rewritten.body.on('error', (error) => upstream.destroy(error));
      rewritten.body.pipe(upstream);
    } else {
      req.pipe(upstream);
    }
  };
  return { forward, close: () => agent.destroy() };
}
