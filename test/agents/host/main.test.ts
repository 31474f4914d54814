// The agent as a real process (main.ts under tsx, and the esbuild bundle): killed and restarted,
// it re-adopts its workers; SIGTERM drains and exits 0.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { buildAgent } from '../../../agents/host/build.ts';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';
import { assertNoOrphans, freePort, isAlive, readStepLog, simJobs, tempDir, waitFor } from './helpers.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'agents/host/main.ts');

function readTelemetry(path: string): TelemetryMessage[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as TelemetryMessage);
  } catch {
    return [];
  }
}

function startAgent(entry: string[], dir: string, telemetry: string): ChildProcess {
  // The agent's log goes to a file: an unread pipe would fill up and block it.
  const log = openSync(join(dir, 'agent.log'), 'a');
  const child = spawn(
    process.execPath,
    [
      ...entry,
      '--mode',
      'local',
      '--host-id',
      'local-1',
      '--desired-state',
      `file:${join(dir, 'desired.json')}`,
      '--telemetry',
      `jsonl:${telemetry}`,
      '--gpus',
      'sim:2xA100',
      '--state-dir',
      join(dir, 'state'),
      '--tick-ms',
      '10',
      '--poll-ms',
      '20',
      '--flush-ms',
      '20',
      '--heartbeat-ms',
      '100',
      '--progress-interval-ms',
      '0',
      '--drain-timeout-ms',
      '5000',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', log] },
  );
  closeSync(log);
  return child;
}

describe('agent process', () => {
  test('SIGKILLed agent: the next agent process re-adopts the workers; SIGTERM drains and exits 0', async () => {
    const dir = tempDir();
    const telemetry = join(dir.path, 'telemetry.jsonl');
    const stepLog = join(dir.path, 'steps.log');
    const workerPids = new Set<number>();
    const agents: ChildProcess[] = [];
    const ofType = <T extends TelemetryMessage['type']>(type: T) =>
      readTelemetry(telemetry).filter((m): m is Extract<TelemetryMessage, { type: T }> => m.type === type);
    try {
      writeFileSync(
        join(dir.path, 'desired.json'),
        JSON.stringify({
          hostId: 'local-1',
          generation: 1,
          jobs: simJobs({
            jobId: 'survivor',
            jobGeneration: 1,
            worldSize: 2,
            gpus: [0, 1],
            totalSteps: 120,
            checkpointDir: join(dir.path, 'ckpt'),
            masterPort: await freePort(),
            stepMs: 20,
            stepLog,
          }),
        }),
      );
      const first = startAgent(['--import', 'tsx', MAIN], dir.path, telemetry);
      agents.push(first);
      await waitFor(
        () => ofType('progress').some((m) => m.step >= 3),
        'progress from the first agent',
        15_000,
      );
      for (const line of readStepLog(stepLog)) workerPids.add(line.pid);
      assert.equal(workerPids.size, 2);
      first.kill('SIGKILL');
      await once(first, 'exit');
      assert.ok([...workerPids].every(isAlive), 'workers survive the agent');

      const second = startAgent(['--import', 'tsx', MAIN], dir.path, telemetry);
      agents.push(second);
      const finished = await waitFor(
        () => ofType('finished')[0],
        'the job to finish under the second agent',
        15_000,
      );
      assert.equal(finished.step, 120);
      assert.equal(ofType('started').length, 1, 'only the first agent started workers');
      assert.equal(ofType('register').length, 2);
      assert.deepEqual(new Set(readStepLog(stepLog).map((line) => line.pid)), workerPids);

      // New work, then SIGTERM: checkpoint, stop, report, exit 0.
      writeFileSync(
        join(dir.path, 'desired.json'),
        JSON.stringify({
          hostId: 'local-1',
          generation: 2,
          jobs: simJobs({
            jobId: 'drained',
            jobGeneration: 1,
            worldSize: 1,
            gpus: [1],
            totalSteps: 100_000,
            checkpointDir: join(dir.path, 'ckpt2'),
            masterPort: await freePort(),
            stepMs: 20,
            stepLog,
          }),
        }),
      );
      await waitFor(
        () => ofType('progress').some((m) => m.jobId === 'drained'),
        'the second job running',
        10_000,
      );
      for (const line of readStepLog(stepLog)) workerPids.add(line.pid);
      second.kill('SIGTERM');
      const [code] = await once(second, 'exit');
      assert.equal(code, 0);
      const drained = ofType('hostDrained')[0];
      assert.equal(drained?.checkpoints[0]?.jobId, 'drained');
      assert.ok((drained?.checkpoints[0]?.step ?? 0) > 0);
    } finally {
      for (const agent of agents)
        if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
      await assertNoOrphans([...workerPids, ...agents.map((agent) => agent.pid!)]);
      dir.cleanup();
    }
  });

  test('the esbuild bundle runs on its own: a job to completion, then a drain', async () => {
    const dir = tempDir();
    const telemetry = join(dir.path, 'telemetry.jsonl');
    const stepLog = join(dir.path, 'steps.log');
    let agent: ChildProcess | null = null;
    try {
      const [bundle] = await buildAgent(join(dir.path, 'dist'));
      writeFileSync(
        join(dir.path, 'desired.json'),
        JSON.stringify({
          hostId: 'local-1',
          generation: 1,
          jobs: simJobs({
            jobId: 'bundled',
            jobGeneration: 1,
            worldSize: 1,
            gpus: [0],
            totalSteps: 20,
            checkpointDir: join(dir.path, 'ckpt'),
            masterPort: 29500,
            stepMs: 5,
            stepLog,
          }),
        }),
      );
      agent = startAgent([bundle!], dir.path, telemetry);
      const finished = await waitFor(
        () => readTelemetry(telemetry).find((m) => m.type === 'finished'),
        'the job to finish under the bundle',
        15_000,
      );
      assert.equal(finished.type === 'finished' && finished.step, 20);
      agent.kill('SIGTERM');
      assert.equal((await once(agent, 'exit'))[0], 0);
      assert.ok(readTelemetry(telemetry).some((m) => m.type === 'hostDrained'));
    } finally {
      if (agent && agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
      await assertNoOrphans([
        ...new Set(readStepLog(stepLog).map((line) => line.pid)),
        ...(agent?.pid ? [agent.pid] : []),
      ]);
      dir.cleanup();
    }
  });
});
