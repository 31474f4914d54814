// The simulated trainer, driven directly (no agent): protocol lines, checkpoints, signals, exit codes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertNoOrphans, fileUri, freePort, readStepLog, SIM_TRAINER, tempDir, waitFor } from './helpers.ts';

interface Run {
  child: ChildProcess;
  lines: () => Record<string, unknown>[];
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: string | null }>;
}

const pids: number[] = [];

function sim(env: Record<string, string>, args: string[] = []): Run {
  const child = spawn(process.execPath, [SIM_TRAINER, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pids.push(child.pid!);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    lines: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
    stderr: () => err,
    exit,
  };
}

const events = (run: Run, event: string) => run.lines().filter((line) => line.event === event);

describe('sim-trainer', () => {
  const dir = tempDir('tessera-sim-');
  let count = 0;
  const job = (overrides: Record<string, string> = {}) => {
    count += 1;
    const checkpointDir = join(dir.path, `ckpt-${count}`);
    return {
      checkpointDir,
      env: {
        TESSERA_JOB_ID: `job-${count}`,
        TESSERA_GENERATION: '1',
        TESSERA_RANK: '0',
        TESSERA_WORLD_SIZE: '1',
        TESSERA_TOTAL_STEPS: '12',
        TESSERA_CHECKPOINT_URI: fileUri(checkpointDir),
        TESSERA_MASTER_ADDR: '127.0.0.1',
        ...overrides,
      },
    };
  };
  before(() => mkdirSync(dir.path, { recursive: true }));
  after(async () => {
    await assertNoOrphans(pids);
    dir.cleanup();
  });

  test('runs to the end: started, progress every step, a final checkpoint, finished, exit 0', async () => {
    const { env, checkpointDir } = job({ TESSERA_REPORT_EVERY: '5' });
    const run = sim(env, ['--step-ms', '1', '--batch-size', '8']);
    assert.deepEqual(await run.exit, { code: 0, signal: null });
    assert.deepEqual(events(run, 'started'), [{ event: 'started', step: 0, rank: 0, ests: [0] }]);
    assert.deepEqual(
      events(run, 'progress').map((line) => line.step),
      [5, 10, 12],
    );
    const progress = events(run, 'progress')[0]!;
    assert.ok((progress.samplesPerSecond as number) > 0 && (progress.stepTime as number) > 0);
    assert.deepEqual(events(run, 'checkpoint'), [
      { event: 'checkpoint', step: 12, uri: `${env.TESSERA_CHECKPOINT_URI}/step-12` },
    ]);
    assert.deepEqual(events(run, 'finished'), [{ event: 'finished', step: 12 }]);
    assert.ok(existsSync(join(checkpointDir, 'step-12', 'COMPLETE')));
    assert.equal(JSON.parse(readFileSync(join(checkpointDir, 'step-12', 'state.json'), 'utf8')).step, 12);
  });

  test('bad configuration exits 2 with an error line naming the variable', async () => {
    const { env } = job();
    const { TESSERA_TOTAL_STEPS: _omitted, ...withoutSteps } = env;
    const run = sim(withoutSteps);
    assert.equal((await run.exit).code, 2);
    assert.deepEqual(events(run, 'error'), [{ event: 'error', message: 'TESSERA_TOTAL_STEPS is required' }]);
    const s3 = sim({ ...env, TESSERA_CHECKPOINT_URI: 's3://bucket/x' });
    assert.equal((await s3.exit).code, 2);
    const flag = sim(env, ['--step-ms', 'soon']);
    assert.equal((await flag.exit).code, 2);
    assert.match(flag.stderr(), /--step-ms: "soon" is not a non-negative integer/);
  });

  test('resuming needs a complete checkpoint (COMPLETE marker), otherwise exit 2', async () => {
    const { env, checkpointDir } = job({ TESSERA_RESUME_STEP: '4' });
    mkdirSync(join(checkpointDir, 'step-4'), { recursive: true });
    writeFileSync(join(checkpointDir, 'step-4', 'state.json'), '{"step":4,"state":1,"maxP":1}');
    const run = sim(env);
    assert.equal((await run.exit).code, 2);
    assert.match(String(events(run, 'error')[0]?.message), /step-4 is not a complete checkpoint/);
  });

  test('SIGUSR2 on two workers: both stop at the same boundary, exit 75, rank 0 confirms the checkpoint', async () => {
    const port = await freePort();
    const stepLog = join(dir.path, 'two.log');
    const { env, checkpointDir } = job({
      TESSERA_WORLD_SIZE: '2',
      TESSERA_MASTER_PORT: String(port),
      TESSERA_TOTAL_STEPS: '1000',
    });
    const ranks = [0, 1].map((rank) =>
      sim({ ...env, TESSERA_RANK: String(rank) }, ['--step-ms', '10', '--step-log', stepLog]),
    );
    await waitFor(
      () => ranks.every((run) => events(run, 'progress').length >= 3),
      'three steps on both ranks',
    );
    for (const run of ranks) run.child.kill('SIGUSR2');
    const exits = await Promise.all(ranks.map((run) => run.exit));
    assert.deepEqual(
      exits.map((exit) => exit.code),
      [75, 75],
    );
    const checkpoints = events(ranks[0]!, 'checkpoint');
    assert.equal(checkpoints.length, 1);
    assert.equal(events(ranks[1]!, 'checkpoint').length, 0, 'only rank 0 reports the checkpoint');
    const step = checkpoints[0]!.step as number;
    for (const run of ranks)
      assert.equal(events(run, 'progress').at(-1)!.step, step, 'both stopped at the boundary');
    assert.ok(existsSync(join(checkpointDir, `step-${step}`, 'COMPLETE')));
    assert.ok(existsSync(join(checkpointDir, `step-${step}`, 'rank-1.json')));
    const log = readStepLog(stepLog);
    assert.deepEqual(
      [0, 1].map((rank) => Math.max(...log.filter((line) => line.rank === rank).map((line) => line.step))),
      [step, step],
    );

    // Resume on one worker running both ESTs: it ends in the state an uninterrupted run reaches.
    const resumed = sim(
      {
        ...env,
        TESSERA_WORLD_SIZE: '1',
        TESSERA_MAX_P: '2',
        TESSERA_ESTS: '0,1',
        TESSERA_RESUME_STEP: String(step),
        TESSERA_TOTAL_STEPS: String(step + 5),
      },
      ['--step-ms', '1', '--step-log', stepLog],
    );
    // maxP must match what the checkpoint was written for (2 = the original world size).
    assert.equal((await resumed.exit).code, 0);
    const straight = join(dir.path, 'straight.log');
    const reference = sim({ ...job().env, TESSERA_TOTAL_STEPS: String(step + 5) }, [
      '--step-ms',
      '0',
      '--step-log',
      straight,
    ]);
    assert.equal((await reference.exit).code, 0);
    assert.equal(readStepLog(stepLog).at(-1)!.state, readStepLog(straight).at(-1)!.state);
    assert.deepEqual(events(resumed, 'started')[0], { event: 'started', step, rank: 0, ests: [0, 1] });
  });

  test('SIGUSR1 checkpoints and continues', async () => {
    const { env, checkpointDir } = job({ TESSERA_TOTAL_STEPS: '40' });
    const run = sim(env, ['--step-ms', '10']);
    await waitFor(() => events(run, 'progress').length >= 2, 'two steps');
    run.child.kill('SIGUSR1');
    assert.equal((await run.exit).code, 0);
    const steps = events(run, 'checkpoint').map((line) => line.step as number);
    assert.equal(steps.length, 2, 'the requested one and the final one');
    assert.ok(steps[0]! < 40 && existsSync(join(checkpointDir, `step-${steps[0]}`, 'COMPLETE')));
  });

  test('--crash-at-step: the crashing rank exits 1, its peer notices and exits 1 too', async () => {
    const port = await freePort();
    const { env, checkpointDir } = job({ TESSERA_WORLD_SIZE: '2', TESSERA_MASTER_PORT: String(port) });
    const ranks = [0, 1].map((rank) =>
      sim({ ...env, TESSERA_RANK: String(rank) }, [
        '--step-ms',
        '1',
        '--crash-at-step',
        '3',
        '--crash-rank',
        '1',
        '--crash-times',
        '1',
      ]),
    );
    const exits = await Promise.all(ranks.map((run) => run.exit));
    assert.deepEqual(
      exits.map((exit) => exit.code),
      [1, 1],
    );
    assert.match(String(events(ranks[1]!, 'error')[0]?.message), /simulated crash at step 3/);
    assert.match(String(events(ranks[0]!, 'error')[0]?.message), /peer disconnected/);
    // --crash-times 1: the next run gets past step 3.
    const again = [0, 1].map((rank) =>
      sim({ ...env, TESSERA_RANK: String(rank) }, [
        '--step-ms',
        '1',
        '--crash-at-step',
        '3',
        '--crash-rank',
        '1',
        '--crash-times',
        '1',
      ]),
    );
    assert.deepEqual(
      (await Promise.all(again.map((run) => run.exit))).map((exit) => exit.code),
      [0, 0],
    );
    rmSync(checkpointDir, { recursive: true, force: true });
  });
});
