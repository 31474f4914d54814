import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { EndpointUnreachableError, TesseraClient } from '../../../lib/client/index.ts';

const credentials = { accessKeyId: 'AKIDALICE', secretAccessKey: 'secret' };

/** A port that was just free: a server is bound to it and closed again. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};

describe('EndpointUnreachableError', () => {
  test('a refused connection on this machine points at npm start (through a real closed port)', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}/v1/`;
    const closed = new TesseraClient({ endpoint, credentials });
    await assert.rejects(closed.cluster(), (e: unknown) => {
      assert.ok(e instanceof EndpointUnreachableError);
      assert.equal(
        e.message,
        `cannot reach the Tessera API at ${endpoint}: ECONNREFUSED — nothing listens there: is the local cloud running (\`npm start\`, which prints its API address)?`,
      );
      return true;
    });
  });

  test('no hint for a remote API or another failure', () => {
    const remote = new EndpointUnreachableError(
      'https://abc.execute-api.us-east-1.amazonaws.com/v1/',
      'ECONNREFUSED',
    );
    assert.doesNotMatch(remote.message, /npm start/);
    const timeout = new EndpointUnreachableError('http://localhost:4600/v1/', 'ETIMEDOUT');
    assert.doesNotMatch(timeout.message, /npm start/);
    assert.match(
      new EndpointUnreachableError('http://localhost:4600/v1/', 'ECONNREFUSED').message,
      /npm start/,
    );
  });
});
