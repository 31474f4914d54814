// Runs the Python trainer suite (agents/trainer/tests, stdlib unittest) under Debian's python3 with
// PyTorch. Without torch the test is skipped with the reason; CI installs python3-torch so it runs.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PYTHON = '/usr/bin/python3';
const TRAINER_DIR = fileURLToPath(new URL('../../../agents/trainer/', import.meta.url));
const SUITE_TIMEOUT_MS = 300_000;

function torchMissingReason(): string | undefined {
  if (!existsSync(PYTHON)) {
    return `${PYTHON} not found; install Debian's python3 and python3-torch to run the trainer tests`;
  }
  const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status === 0) return undefined;
  const detail = (probe.stderr || probe.error?.message || '').trim().split('\n').at(-1) ?? '';
  return `\`${PYTHON} -c 'import torch'\` failed (${detail}); install it with \`apt-get install -y python3-torch\``;
}

interface SuiteResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

function runSuite(): Promise<SuiteResult> {
  return new Promise((resolve, reject) => {
    // Own process group, so a timeout can end the suite together with the trainer workers it started.
    const child = spawn(PYTHON, ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
      cwd: TRAINER_DIR,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, SUITE_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    });
  });
}

const skipReason = torchMissingReason();

test('python trainer suite: ESTs, D1 bitwise consistency across layouts and rescales, protocol', {
  skip: skipReason ?? false,
  timeout: SUITE_TIMEOUT_MS + 10_000,
}, async (t) => {
  const result = await runSuite();
  const tail = result.output.split('\n').slice(-80).join('\n');
  assert.ok(!result.timedOut, `python suite exceeded ${SUITE_TIMEOUT_MS} ms and was killed\n${tail}`);
  assert.equal(result.code, 0, `python suite failed (exit ${result.code}, signal ${result.signal})\n${tail}`);
  const summary = result.output.match(/^Ran (\d+) tests? in [\d.]+s$/m);
  assert.ok(summary, `no unittest summary in the output\n${tail}`);
  assert.ok(Number(summary[1]) > 0, 'the python suite ran no test');
  t.diagnostic(summary[0]);
});
