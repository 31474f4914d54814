/** A tiny IMDSv2 lookalike on 127.0.0.1 for tests: tokens, identity documents, Spot notices. */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeImds {
  url: string;
  requests: { method: string; path: string; token: string | null; ttl: string | null }[];
  /** Body of /latest/meta-data/spot/instance-action, or null for 404 (no interruption). */
  setSpotAction(body: string | null): void;
  /** Invalidates every token issued so far (as if they expired). */
  expireTokens(): void;
  close(): Promise<void>;
}

export async function startFakeImds(
  identity = {
    instanceId: 'i-0123456789abcdef0',
    instanceType: 'p4d.24xlarge',
    availabilityZone: 'us-east-1a',
  },
): Promise<FakeImds> {
  const tokens = new Set<string>();
  let issued = 0;
  let spotAction: string | null = null;
  const requests: FakeImds['requests'] = [];
  const documents: Record<string, () => string | null> = {
    '/latest/meta-data/instance-id': () => identity.instanceId,
    '/latest/meta-data/instance-type': () => identity.instanceType,
    '/latest/meta-data/placement/availability-zone': () => identity.availabilityZone,
    '/latest/meta-data/local-ipv4': () => '10.0.1.23',
    '/latest/meta-data/spot/instance-action': () => spotAction,
  };
  const header = (request: IncomingMessage, name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : null;
  };
  const server = createServer((request, response) => {
    const path = request.url ?? '';
    const token = header(request, 'x-aws-ec2-metadata-token');
    const ttl = header(request, 'x-aws-ec2-metadata-token-ttl-seconds');
    requests.push({ method: request.method ?? '', path, token, ttl });
    if (request.method === 'PUT' && path === '/latest/api/token') {
      const seconds = Number(ttl);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 21_600) {
        response.writeHead(400).end();
        return;
      }
      const value = `token-${++issued}`;
      tokens.add(value);
      response.writeHead(200, { 'content-type': 'text/plain' }).end(value);
      return;
    }
    if (request.method !== 'GET') {
      response.writeHead(405).end();
      return;
    }
    if (token === null || !tokens.has(token)) {
      response.writeHead(401).end();
      return;
    }
    const body = documents[path]?.() ?? null;
    if (body === null) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setSpotAction(body) {
      spotAction = body;
    },
    expireTokens() {
      tokens.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
