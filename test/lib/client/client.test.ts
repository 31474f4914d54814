// The typed client against the local API gateway (a stand-in handler answers): SigV4 signing, every route, and
// each kind of failure as its typed error. The whole path through the real handlers is test/e2e.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  BadRequestError,
  ConflictError,
  EndpointNotConfiguredError,
  EndpointUnreachableError,
  ForbiddenError,
  NoCredentialsError,
  NotFoundError,
  resolveEndpoint,
  signingRegion,
  TesseraClient,
} from '../../../lib/client/index.ts';
import { API_ROUTES } from '../../../lib/infra/api.ts';
import { type LocalApiGateway, startLocalApiGateway } from '../../../lib/local/cloud/api-gateway.ts';

const CLI = join(import.meta.dirname, '../../../bin/tessera-cli.mjs');
const credentials = { accessKeyId: 'AKIDALICE', secretAccessKey: 'secret' };
const events: APIGatewayProxyEvent[] = [];
let gateway: LocalApiGateway;

const reply = (statusCode: number, body: unknown) => ({ statusCode, body: JSON.stringify(body) });

before(async () => {
  gateway = await startLocalApiGateway({
    routes: API_ROUTES,
    port: 0,
    invoke: async (event) => {
      events.push(event);
      const id = event.pathParameters?.id;
      if (event.resource === '/jobs' && event.httpMethod === 'POST') {
        const body = JSON.parse(event.body ?? '{}');
        if (body.gpus === 0)
          return reply(400, {
            error: 'BadRequest',
            message: 'gpus: must be at least 1',
            issues: [{ field: 'gpus', rule: 'must be at least 1' }],
          });
        return reply(201, { job: { jobId: 'job-1', status: 'queued' }, created: true });
      }
      if (event.resource === '/jobs' && event.httpMethod === 'GET')
        return event.queryStringParameters?.nextToken
          ? reply(200, { jobs: [{ jobId: 'job-2' }] })
          : reply(200, { jobs: [{ jobId: 'job-1' }], nextToken: 'page-2' });
      if (id === 'job-missing')
        return reply(404, { error: 'NotFound', message: 'job job-missing not found' });
      if (id === 'job-done')
        return reply(409, { error: 'Conflict', message: 'job job-done already finished' });
      if (event.httpMethod === 'DELETE')
        return reply(202, { job: { jobId: id, status: 'running', cancelRequested: true } });
      if (event.resource === '/jobs/{id}') return reply(200, { job: { jobId: id, status: 'running' } });
      return reply(200, { round: 3, hosts: [], gpus: 0, busyGpus: 0, jobs: {} });
    },
  });
});
after(() => gateway?.stop());

const client = () => new TesseraClient({ endpoint: gateway.url, credentials });

describe('TesseraClient', () => {
  test('signs every route with SigV4 for execute-api; the access key is the principal', async () => {
    events.length = 0;
    const c = client();
    assert.deepEqual(await c.submit({ gpus: 1 }), {
      job: { jobId: 'job-1', status: 'queued' },
      created: true,
    });
    assert.deepEqual(
      (await c.listAllJobs({ status: 'running' })).map((j) => j.jobId),
      ['job-1', 'job-2'],
    );
    assert.equal((await c.getJob('job-7')).jobId, 'job-7');
    assert.deepEqual(await c.cancel('job-7'), {
      job: { jobId: 'job-7', status: 'running', cancelRequested: true },
      immediate: false,
    });
    assert.equal((await c.cluster()).round, 3);
    assert.deepEqual(
      events.map((e) => `${e.httpMethod} ${e.resource}`),
      ['POST /jobs', 'GET /jobs', 'GET /jobs', 'GET /jobs/{id}', 'DELETE /jobs/{id}', 'GET /cluster'],
    );
    assert.ok(events.every((e) => e.requestContext.identity.user === 'AKIDALICE'));
    const auth = events[0]!.headers.authorization ?? '';
    assert.match(
      auth,
      /^AWS4-HMAC-SHA256 Credential=AKIDALICE\/\d{8}\/us-east-1\/execute-api\/aws4_request, SignedHeaders=[a-z0-9;-]*host/,
    );
    assert.deepEqual(events[1]!.queryStringParameters, { status: 'running', limit: '100' });
    assert.equal(events[2]!.queryStringParameters?.nextToken, 'page-2');
    assert.equal(JSON.parse(events[0]!.body!).gpus, 1);
  });

  test('400 carries the server’s field issues; 404 and 409 are their own errors', async () => {
    const c = client();
    const bad = await c.submit({ gpus: 0 }).catch((e: unknown) => e);
    assert.ok(bad instanceof BadRequestError);
    assert.deepEqual(bad.issues, [{ field: 'gpus', rule: 'must be at least 1' }]);
    await assert.rejects(c.getJob('job-missing'), NotFoundError);
    await assert.rejects(c.cancel('job-done'), ConflictError);
  });

  test('unsigned requests and wrong paths get 403, as from API Gateway with IAM auth', async () => {
    const unsigned = await fetch(`${gateway.url}jobs`);
    assert.equal(unsigned.status, 403);
    const wrongBase = new TesseraClient({ endpoint: gateway.url.replace('/v1/', '/'), credentials });
    await assert.rejects(wrongBase.cluster(), ForbiddenError);
  });

  test('an endpoint that does not answer is EndpointUnreachableError naming it', async () => {
    const closed = new TesseraClient({ endpoint: 'http://127.0.0.1:9/v1/', credentials });
    await assert.rejects(
      closed.cluster(),
      (e: unknown) => e instanceof EndpointUnreachableError && /127\.0\.0\.1:9/.test(e.message),
    );
  });

  test('a credential provider that finds nothing is NoCredentialsError', async () => {
    const none = new TesseraClient({
      endpoint: gateway.url,
      credentials: async () => {
        throw Object.assign(new Error('Could not load credentials from any providers'), {
          name: 'CredentialsProviderError',
        });
      },
    });
    await assert.rejects(none.cluster(), NoCredentialsError);
  });
});

describe('resolveEndpoint', () => {
  test('--endpoint, then TESSERA_ENDPOINT, then the stack’s ApiUrl output', async () => {
    assert.equal(await resolveEndpoint({ endpoint: 'http://x:1/v1', env: {} }), 'http://x:1/v1/');
    assert.equal(await resolveEndpoint({ env: { TESSERA_ENDPOINT: 'http://y:2/v1/' } }), 'http://y:2/v1/');
    const url = await resolveEndpoint({
      stack: 'Tessera',
      env: {},
      describeStack: async () => ({ ApiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/v1/' }),
    });
    assert.equal(signingRegion(url, {}), 'eu-west-1');
    await assert.rejects(
      resolveEndpoint({ stack: 'Other', env: {}, describeStack: async () => ({}) }),
      /has no ApiUrl output/,
    );
    await assert.rejects(resolveEndpoint({ env: {} }), EndpointNotConfiguredError);
  });
});

describe('the CLI’s errors', () => {
  const run = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env },
    });

  test('no credentials anywhere: one clear line, exit 1', () => {
    const home = mkdtempSync(join(tmpdir(), 'tessera-nocreds-'));
    const result = run(['jobs', '--endpoint', gateway.url], {
      HOME: home,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /tessera: no AWS credentials: set AWS_ACCESS_KEY_ID/);
  });

  test('no endpoint: says how to give one; --json errors are JSON', () => {
    const result = run(['cluster', '--json'], { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' });
    assert.equal(result.status, 1, result.stderr);
    const error = JSON.parse(result.stdout);
    assert.equal(error.error, 'EndpointNotConfiguredError');
    assert.match(error.message, /--endpoint <url>, set TESSERA_ENDPOINT, or give --stack/);
  });
});
