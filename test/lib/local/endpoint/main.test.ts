import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { processesInGroup } from './helpers.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

test('the CLI prints its URL, serves, and on SIGTERM stops DynamoDB Local and exits 0', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/endpoint/main.ts', '--port', '0'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr:\n${stderr}`)), 30_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = /^(http:\/\/127\.0\.0\.1:\d+)\n/m.exec(stdout);
        if (line) {
          clearTimeout(timer);
          resolve(line[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}; stderr:\n${stderr}`)));
    });
    const health = (await (await fetch(`${url}/_localstack/health`)).json()) as {
      services: Record<string, string>;
    };
    assert.equal(health.services.dynamodb, 'running');

    const guardPid = Number(/DynamoDB Local pid (\d+)/.exec(stderr)?.[1]);
    assert.ok(
      processesInGroup(guardPid).some((p) => p.command === 'java'),
      'java runs while serving',
    );

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, stderr);
    assert.deepEqual(processesInGroup(guardPid), []);
    await assert.rejects(fetch(`${url}/_localstack/health`));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('the CLI rejects a bad port with a clear message', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/endpoint/main.ts', '--port', 'abc'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  assert.notEqual(code, 0);
  assert.match(stderr, /--port.*expected a port number/s);
});
