import { Agent, type IncomingMessage, request, type ServerResponse } from 'node:http';

/**
 * Forward a request to a loopback port unchanged (method, path, headers, body streamed both
 * ways). Headers go through as-is, Host included, because SigV4 signatures cover them.
 */
export function createProxy(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const forward = (req: IncomingMessage, res: ServerResponse, onError: (error: Error) => void): void => {
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
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
    req.pipe(upstream);
  };
  return { forward, close: () => agent.destroy() };
}
