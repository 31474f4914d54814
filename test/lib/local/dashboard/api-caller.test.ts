import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { TesseraClient } from '../../../../lib/client/index.ts';
import { clientApiCaller, resourceOf } from '../../../../lib/local/dashboard/api-caller.ts';
import { signRequest } from '../../../../lib/local/endpoint/sigv4.ts';

describe('resourceOf: API Gateway resource templates of dashboard paths', () => {
  test('job paths carry the id as a path parameter; others are their own resource', () => {
    assert.deepEqual(resourceOf('/jobs/job-abc'), {
      resource: '/jobs/{id}',
      pathParameters: { id: 'job-abc' },
    });
    assert.deepEqual(resourceOf('/jobs/job-abc/logs'), {
      resource: '/jobs/{id}/logs',
      pathParameters: { id: 'job-abc' },
    });
    assert.deepEqual(resourceOf('/jobs'), { resource: '/jobs' });
    assert.deepEqual(resourceOf('/cluster'), { resource: '/cluster' });
  });
});

describe('clientApiCaller: the typed client, SigV4 with the default credential chain', () => {
  const saved = { ...process.env };
  const received: { method: string; url: string; headers: Record<string, string> }[] = [];
  const server = createServer((req, res) => {
    received.push({ method: req.method!, url: req.url!, headers: req.headers as Record<string, string> });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jobs: [], echo: req.url }));
  });
  let url = '';
  before(async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret-test' });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prod`;
  });
  after(() => {
    process.env = saved;
    server.close();
  });

  test('signs for execute-api in the region; an independent SigV4 implementation computes the same signature', async () => {
    const call = clientApiCaller(new TesseraClient({ endpoint: url, region: 'eu-west-1' }));
    const response = await call({ method: 'GET', path: '/jobs', query: { limit: '100', status: 'queued' } });
    assert.equal(response.status, 200);
    const request = received.at(-1)!;
    assert.equal(request.method, 'GET');
    assert.equal(request.url, '/prod/jobs?limit=100&status=queued');
    const authorization = request.headers.authorization!;
    assert.match(
      authorization,
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/execute-api\/aws4_request, /,
    );
    const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';');
    const stamp = request.headers['x-amz-date']!;
    const now = new Date(
      `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`,
    );
    const headers = Object.fromEntries(
      signedNames.filter((n) => n !== 'host' && n !== 'x-amz-date').map((n) => [n, request.headers[n]!]),
    );
    const expected = signRequest(
      { method: 'GET', url: new URL(request.url, `http://${request.headers.host}`), headers, body: '' },
      {
        credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret-test' },
        region: 'eu-west-1',
        service: 'execute-api',
        now,
      },
    );
    assert.equal(authorization, expected.authorization);
  });
});
