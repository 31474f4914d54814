// Agent restarts: a new agent process re-adopts the workers of the previous one, or kills stragglers
// and restarts the job from its newest complete checkpoint.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { InMemoryTelemetrySink } from '../../../agents/host/ports/telemetry-sink.ts';
import { processStartTime } from '../../../agents/host/process/process-identity.ts';
import { writeStateFile } from '../../../agents/host/state-file.ts';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';
import {
  agentHarness,
  assertNoOrphans,
  freePort,
  isAlive,
  readStepLog,
  simJobs,
  tempDir,
  waitFor,
} from './helpers.ts';

/** A telemetry sink that is unreachable while `down`. */
class FlakySink extends InMemoryTelemetrySink {
  down = true;
  override async send(messages: readonly TelemetryMessage[]): Promise<void> {
    if (this.down) throw new Error('telemetry queue unreachable');
    await super.send(messages);
  }
}

describe('agent restart', () => {
  test('reports not yet delivered survive the agent: a finished job is reported by the next agent process', async () => {
    const dir = tempDir();
    const stateDir = join(dir.path, 'state');
    const first = agentHarness({ stateDir, telemetry: new FlakySink() });
    const second = agentHarness({ stateDir, desired: first.desired });
    try {
      first.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'short',
          jobGeneration: 1,
          worldSize: 1,
          gpus: [0],
          totalSteps: 5,
          checkpointDir: join(dir.path, 'ckpt'),
          masterPort: await freePort(),
          stepMs: 10,
        }),
      });
      await first.agent.start();
      const outbox = join(stateDir, 'telemetry-outbox.json');
      await waitFor(
        () => existsSync(outbox) && readFileSync(outbox, 'utf8').includes('"type":"finished"'),
        'the finished report in the outbox',
        10_000,
      );
      assert.equal(first.telemetry.messages.length, 0, 'nothing reached the queue');
      await first.agent.abandon(); // killed before its terminal report was delivered

      await second.agent.start();
      const finished = await waitFor(
        () => second.telemetry.ofType('finished')[0],
        'the resent report',
        10_000,
      );
      assert.deepEqual([finished.jobId, finished.jobGeneration, finished.step], ['short', 1, 5]);
      assert.equal(second.pids.size, 0, 'the finished job was not run again');
      const types = second.telemetry.messages.map((m) => m.type);
      assert.ok(
        types.indexOf('started') < types.indexOf('finished'),
        'the first agent’s reports, in their order',
      );
    } finally {
      await second.agent.drainAndStop();
      dir.cleanup();
    }
  });

  test('still-running workers are re-adopted and the job finishes without a restart', async () => {
    const dir = tempDir();
    const stateDir = join(dir.path, 'state');
    const stepLog = join(dir.path, 'steps.log');
    const pids = new Set<number>();
    const first = agentHarness({ stateDir, pids });
    const second = agentHarness({ stateDir, pids, desired: first.desired });
    try {
      first.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'long',
          jobGeneration: 1,
          worldSize: 2,
          gpus: [0, 1],
          totalSteps: 50,
          checkpointDir: join(dir.path, 'ckpt'),
          masterPort: await freePort(),
          stepMs: 20,
          stepLog,
        }),
      });
      await first.agent.start();
      await waitFor(
        () => first.telemetry.ofType('progress').some((message) => message.step >= 5),
        'five steps',
      );
      const workerPids = first.agent.workerPids().sort();
      await first.agent.abandon(); // the agent process "dies"; its workers do not
      assert.ok(workerPids.every(isAlive));

      await second.agent.start();
      assert.deepEqual(second.agent.workerPids().sort(), workerPids, 're-adopted the same processes');
      const finished = await waitFor(
        () => second.telemetry.ofType('finished')[0],
        'the job to finish',
        10_000,
      );
      assert.equal(finished.step, 50);
      assert.equal(second.telemetry.ofType('started').length, 0, 'nothing was restarted');
      assert.ok(second.telemetry.ofType('progress').length > 0, 'progress is read from the adopted workers');
      const log = readStepLog(stepLog);
      assert.deepEqual(new Set(log.map((line) => line.pid)), new Set(workerPids));
      for (const rank of [0, 1]) {
        assert.deepEqual(
          log.filter((line) => line.rank === rank).map((line) => line.step),
          Array.from({ length: 50 }, (_, i) => i + 1),
        );
      }
    } finally {
      await second.agent.drainAndStop();
      await assertNoOrphans(pids);
      dir.cleanup();
    }
  });

  test('a worker that died while no agent watched: the straggler is killed, the job restarts from its checkpoint', async () => {
    const dir = tempDir();
    const stateDir = join(dir.path, 'state');
    const stepLog = join(dir.path, 'steps.log');
    const pids = new Set<number>();
    const first = agentHarness({ stateDir, pids });
    const second = agentHarness({ stateDir, pids, desired: first.desired });
    try {
      first.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'broken',
          jobGeneration: 1,
          worldSize: 2,
          gpus: [0, 1],
          totalSteps: 40,
          checkpointDir: join(dir.path, 'ckpt'),
          masterPort: await freePort(),
          stepMs: 20,
          stepLog,
          env: { TESSERA_CHECKPOINT_EVERY: '5' },
        }),
      });
      await first.agent.start();
      await waitFor(
        () => first.telemetry.ofType('checkpointed').some((message) => message.step >= 10),
        'a checkpoint at step 10',
      );
      await first.agent.abandon();
      const [rank0, rank1] = readStepLog(stepLog).reduce<number[]>(
        (found, line) => {
          found[line.rank] = line.pid;
          return found;
        },
        [0, 0],
      );
      process.kill(rank1!, 'SIGKILL'); // dies while there is no agent
      await waitFor(() => !isAlive(rank1!), 'rank 1 gone');

      await second.agent.start();
      await waitFor(() => !isAlive(rank0!), 'the straggler (rank 0) killed', 3_000);
      const restart = await waitFor(() => second.telemetry.ofType('started')[0], 'the restart');
      const checkpoints = first.telemetry
        .ofType('checkpointed')
        .concat(second.telemetry.ofType('checkpointed'))
        .map((message) => message.step);
      assert.equal(
        restart.resumeStep,
        Math.max(...checkpoints),
        'resumed from the newest complete checkpoint',
      );
      assert.equal(restart.attempt, 2);
      const finished = await waitFor(
        () => second.telemetry.ofType('finished')[0],
        'the job to finish',
        10_000,
      );
      assert.equal(finished.step, 40);
      const after = readStepLog(stepLog).filter((line) => line.pid !== rank0 && line.pid !== rank1);
      for (const rank of [0, 1]) {
        assert.deepEqual(
          after.filter((line) => line.rank === rank).map((line) => line.step),
          Array.from({ length: 40 - restart.resumeStep }, (_, i) => restart.resumeStep + 1 + i),
        );
      }
    } finally {
      await second.agent.drainAndStop();
      await assertNoOrphans(pids);
      dir.cleanup();
    }
  });

  test('a state file written for another host id: its workers are killed, nothing is adopted', async () => {
    const dir = tempDir();
    const stateDir = join(dir.path, 'state');
    const leftover = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
      detached: true,
    });
    const pid = leftover.pid!;
    const harness = agentHarness({ stateDir, hostId: 'host-a' });
    harness.pids.add(pid);
    try {
      writeStateFile(join(stateDir, 'agent-state.json'), {
        version: 1,
        hostId: 'host-z',
        savedAt: 0,
        reconciler: { appliedGeneration: 4, evacuation: null, jobs: [] },
        processes: [
          {
            ref: 'x/g1/a1/r0',
            pid,
            startTime: processStartTime(pid),
            stdoutPath: join(dir.path, 'x.out'),
            stderrPath: join(dir.path, 'x.err'),
            stdoutOffset: 0,
            stopRequested: false,
            killed: false,
          },
        ],
      });
      await harness.agent.start();
      await waitFor(() => !isAlive(pid), 'the leftover worker to be killed', 3_000);
      assert.deepEqual(harness.agent.workerPids(), []);
      const heartbeat = harness.telemetry.ofType('heartbeat')[0];
      assert.equal(heartbeat?.appliedGeneration, null, 'the foreign state was not taken over');
    } finally {
      await harness.agent.drainAndStop();
      await assertNoOrphans(harness.pids);
      dir.cleanup();
    }
  });
  test('an agent started after a shutdown runs work again: the shutdown evacuation is not restored', async () => {
    const dir = tempDir();
    const stateDir = join(dir.path, 'state');
    const first = agentHarness({ stateDir });
    const second = agentHarness({ stateDir, desired: first.desired });
    try {
      first.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'long',
          jobGeneration: 1,
          worldSize: 1,
          gpus: [0],
          totalSteps: 100_000,
          checkpointDir: join(dir.path, 'ckpt'),
          masterPort: await freePort(),
          stepMs: 10,
        }),
      });
      await first.agent.start();
      await waitFor(() => first.telemetry.ofType('started')[0], 'the first start', 10_000);
      await first.agent.drainAndStop(); // `npm start` stopped with Ctrl-C: a shutdown evacuation
      const saved = JSON.parse(readFileSync(join(stateDir, 'agent-state.json'), 'utf8'));
      assert.equal(saved.reconciler.evacuation?.reason, 'shutdown', 'the state file records the shutdown');

      await second.agent.start();
      const started = await waitFor(
        () => second.telemetry.ofType('started')[0],
        'the job to start again',
        10_000,
      );
      assert.equal(started.jobId, 'long');
      const beat = await waitFor(() => second.telemetry.ofType('heartbeat').at(-1), 'a heartbeat', 10_000);
      assert.equal(beat.evacuating, null);
    } finally {
      await second.agent.drainAndStop();
      await assertNoOrphans(new Set([...first.pids, ...second.pids]));
      dir.cleanup();
    }
  });
});
