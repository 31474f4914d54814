import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ImdsClient, ImdsError } from '../../../../agents/host/discovery/imds.ts';
import { freePort } from '../helpers.ts';
import { type FakeImds, startFakeImds } from './fake-imds.ts';

describe('ImdsClient against a fake IMDSv2', () => {
  let imds: FakeImds;
  before(async () => {
    imds = await startFakeImds();
  });
  after(() => imds.close());

  test('gets a token with a TTL first, then reads the identity with it', async () => {
    imds.requests.length = 0;
    const client = new ImdsClient({ baseUrl: imds.url, tokenTtlSeconds: 300 });
    assert.deepEqual(await client.identity(), {
      instanceId: 'i-0123456789abcdef0',
      instanceType: 'p4d.24xlarge',
      availabilityZone: 'us-east-1a',
    });
    const puts = imds.requests.filter((request) => request.method === 'PUT');
    assert.equal(puts.length, 1, 'one token for all three reads');
    assert.deepEqual(puts[0], { method: 'PUT', path: '/latest/api/token', token: null, ttl: '300' });
    const gets = imds.requests.filter((request) => request.method === 'GET');
    assert.equal(gets.length, 3);
    assert.ok(gets.every((request) => request.token === 'token-1' || request.token?.startsWith('token-')));
  });

  test('no Spot notice: instance-action answers 404 → null', async () => {
    imds.setSpotAction(null);
    assert.equal(await new ImdsClient({ baseUrl: imds.url }).spotNotice(), null);
  });

  test('a Spot notice gives the action and the time EC2 will act', async () => {
    imds.setSpotAction('{"action": "terminate", "time": "2026-11-22T08:22:00Z"}');
    assert.deepEqual(await new ImdsClient({ baseUrl: imds.url }).spotNotice(), {
      action: 'terminate',
      time: Date.parse('2026-11-22T08:22:00Z'),
    });
    imds.setSpotAction('not json');
    assert.deepEqual(await new ImdsClient({ baseUrl: imds.url }).spotNotice(), {
      action: 'unknown',
      time: null,
    });
    imds.setSpotAction(null);
  });

  test('a token IMDS no longer accepts is renewed once', async () => {
    const client = new ImdsClient({ baseUrl: imds.url });
    await client.spotNotice();
    imds.expireTokens();
    imds.requests.length = 0;
    assert.equal(await client.get('meta-data/instance-type'), 'p4d.24xlarge');
    assert.deepEqual(
      imds.requests.map((request) => request.method),
      ['GET', 'PUT', 'GET'],
    );
  });

  test('the token is renewed before it expires (by the injected clock)', async () => {
    let now = 1_000_000;
    const client = new ImdsClient({ baseUrl: imds.url, tokenTtlSeconds: 120, clock: { now: () => now } });
    await client.get('meta-data/instance-id');
    imds.requests.length = 0;
    now += 30_000; // well within the TTL
    await client.get('meta-data/instance-id');
    assert.equal(imds.requests.filter((request) => request.method === 'PUT').length, 0);
    now += 40_000; // within a minute of expiry
    await client.get('meta-data/instance-id');
    assert.equal(imds.requests.filter((request) => request.method === 'PUT').length, 1);
  });

  test('other HTTP errors name the path', async () => {
    const client = new ImdsClient({ baseUrl: `${imds.url}/` });
    assert.equal(await client.get('meta-data/does-not-exist'), null);
    await assert.rejects(
      new ImdsClient({ baseUrl: imds.url, tokenTtlSeconds: 999_999 }).get('meta-data/instance-id'),
      (error: Error) =>
        error instanceof ImdsError && /PUT \/latest\/api\/token: HTTP 400/.test(error.message),
    );
  });
});

test("the instance's private IPv4: the address other hosts reach it at", async () => {
  const imds = await startFakeImds();
  try {
    assert.equal(await new ImdsClient({ baseUrl: imds.url }).privateAddress(), '10.0.1.23');
  } finally {
    await imds.close();
  }
});

test('an unreachable IMDS fails fast with the URL', async () => {
  const port = await freePort();
  await assert.rejects(
    new ImdsClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 500 }).identity(),
    (error: Error) =>
      error instanceof ImdsError && error.message.includes(`127.0.0.1:${port}/latest/api/token`),
  );
});

test('an IMDS that never answers times out', async () => {
  const server = createServer(() => {}); // accepts, never responds
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const started = Date.now();
    await assert.rejects(
      new ImdsClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 100 }).spotNotice(),
      ImdsError,
    );
    assert.ok(Date.now() - started < 2_000);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
