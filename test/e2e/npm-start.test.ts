// `npm start` as a user runs it: in the background (`npm start > cloud.log &`, a service manager, `timeout`), where a
// signal reaches npm's own process, which forwards it to its child; and in a terminal, where Ctrl-C reaches the whole
// process group (npm, and node, which then gets the forwarded SIGINT as well). With a shell between npm and node
// (`sh -c "node …"`) SIGTERM killed the shell and left the local cloud running, orphaned with its JVM and agents;
// without the shell, the forwarded copy of one Ctrl-C must not count as the second Ctrl-C that exits at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pidsWithEnv, signalAll } from '../../lib/local/cloud/process-marks.ts';
import { ownLocalCloud } from '../support/local-cloud-args.ts';

const ROOT = join(import.meta.dirname, '../..');
const MARK = 'TESSERA_NPM_START_MARK';
const dir = mkdtempSync(join(tmpdir(), 'tessera-npm-start-'));
const marks: string[] = [];

after(() => {
  for (const mark of marks) signalAll(pidsWithEnv(MARK, mark), 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** `npm start` in its own process group, once the local cloud is ready. */
const startNpm = async () => {
  const mark = randomBytes(6).toString('hex');
  marks.push(mark);
  const npm = spawn('npm', ['start', '--', '--fresh', ...ownLocalCloud(join(dir, mark)), '--no-demo'], {
    cwd: ROOT,
    env: { ...process.env, [MARK]: mark },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/local cloud ready in/.test(output)) resolve();
    };
    npm.stdout!.on('data', read);
    npm.stderr!.on('data', read);
    void exited.then((code) =>
      reject(new Error(`npm start exited (${code}) before it was ready:\n${output}`)),
    );
  });
  assert.ok(pidsWithEnv(MARK, mark).length > 1, 'the local cloud and DynamoDB Local run');
  return { npm, mark, exited, output: () => output };
};

/** Every process of the run has gone (at most 20 s after npm exited). */
const noneLeft = async (mark: string, output: () => string) => {
  const deadline = Date.now() + 20_000;
  while (pidsWithEnv(MARK, mark).length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 250));
  assert.deepEqual(pidsWithEnv(MARK, mark), [], `a process of the run outlived npm start:\n${output()}`);
};

test('SIGTERM to `npm start` stops the local cloud and every process it started', async () => {
  const { npm, mark, exited, output } = await startNpm();
  npm.kill('SIGTERM');
  await exited;
  await noneLeft(mark, output);
  assert.match(output(), /SIGTERM: stopping the local cloud…\n[\s\S]*stopped/);
});

test('one Ctrl-C, which node gets from the terminal and again from npm, stops it in order', async () => {
  const { npm, mark, exited, output } = await startNpm();
  // The terminal's SIGINT reaches the whole process group; npm forwards its own copy to node a moment later. Sent
  // to the group at once, the two copies may merge into one pending signal, so they are sent 200 ms apart here.
  const [node] = readFileSync(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8')
    .trim()
    .split(' ')
    .map(Number);
  assert.match(
    readFileSync(`/proc/${node}/cmdline`, 'utf8'),
    /tessera-cli\.mjs\0local/,
    'npm runs node itself',
  );
  process.kill(node!, 'SIGINT');
  await new Promise((resolve) => setTimeout(resolve, 200));
  npm.kill('SIGINT');
  await exited;
  await noneLeft(mark, output);
  assert.match(output(), /SIGINT: stopping the local cloud…\n[\s\S]*stopped/);
  assert.doesNotMatch(output(), /again: exiting now/);
});
