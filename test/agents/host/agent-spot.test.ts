// Spot interruption: the agent polls a (fake) IMDS and checkpoints every job before the deadline.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ImdsClient } from '../../../agents/host/discovery/imds.ts';
import { startFakeImds } from './discovery/fake-imds.ts';
import { agentHarness, assertNoOrphans, freePort, simJob, sleep, tempDir, waitFor } from './helpers.ts';

describe('Spot interruption', () => {
  test('a notice checkpoints every job before the deadline, reports it, and starts nothing more', async () => {
    const dir = tempDir();
    const imds = await startFakeImds();
    const harness = agentHarness({
      stateDir: join(dir.path, 'state'),
      spotNotices: new ImdsClient({ baseUrl: imds.url }),
      timings: { spotDeadlineMs: 3_000, checkpointTimeoutMs: 60_000 },
    });
    try {
      const common = { jobGeneration: 1, totalSteps: 10_000, stepMs: 20 };
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: [
          simJob({
            ...common,
            jobId: 'big',
            worldSize: 2,
            gpus: [0, 1],
            checkpointDir: join(dir.path, 'big'),
            masterPort: await freePort(),
          }),
          simJob({
            ...common,
            jobId: 'small',
            worldSize: 1,
            gpus: [2],
            checkpointDir: join(dir.path, 'small'),
            masterPort: await freePort(),
          }),
        ],
      });
      await harness.agent.start();
      await waitFor(
        () => new Set(harness.telemetry.ofType('progress').map((message) => message.jobId)).size === 2,
        'both jobs progressing',
      );
      assert.equal(harness.telemetry.ofType('spotInterruption').length, 0, 'no notice: IMDS answered 404');

      const noticeAt = Date.now();
      imds.setSpotAction(
        JSON.stringify({ action: 'terminate', time: new Date(noticeAt + 120_000).toISOString() }),
      );
      const report = await waitFor(
        () => harness.telemetry.ofType('spotInterruption')[0],
        'the Spot report',
        5_000,
      );
      assert.ok(
        report.at * 1000 - noticeAt < 3_000,
        `checkpointed within the deadline (${report.at * 1000 - noticeAt} ms)`,
      );
      assert.equal(report.action, 'terminate');
      assert.equal(
        report.noticeTime,
        Date.parse(new Date(noticeAt + 120_000).toISOString()) / 1000,
        'seconds',
      );
      assert.deepEqual(report.checkpoints.map((entry) => entry.jobId).sort(), ['big', 'small']);
      for (const entry of report.checkpoints) {
        assert.equal(entry.timedOut, false);
        assert.ok(entry.step !== null && entry.step > 0, `${entry.jobId} has a checkpoint`);
        assert.ok(existsSync(join(dir.path, entry.jobId, `step-${entry.step}`, 'COMPLETE')));
      }
      assert.deepEqual(
        harness.telemetry
          .ofType('stopped')
          .map((message) => message.reason)
          .sort(),
        ['spot', 'spot'],
      );
      assert.deepEqual(harness.agent.workerPids(), []);
      const started = harness.telemetry.ofType('started').length;
      await sleep(300); // the desired state still lists both jobs
      assert.equal(
        harness.telemetry.ofType('started').length,
        started,
        'nothing restarts on a host that is going away',
      );
    } finally {
      await harness.agent.drainAndStop();
      await assertNoOrphans(harness.pids);
      await imds.close();
      dir.cleanup();
    }
  });

  test('a worker that ignores the request is killed at the deadline and reported as timed out', async () => {
    const dir = tempDir();
    const imds = await startFakeImds();
    const harness = agentHarness({
      stateDir: join(dir.path, 'state'),
      spotNotices: new ImdsClient({ baseUrl: imds.url }),
      timings: { spotDeadlineMs: 400 },
    });
    try {
      const stubborn = join(dir.path, 'stubborn.mjs');
      writeFileSync(
        stubborn,
        "process.on('SIGUSR2', () => {}); process.on('SIGTERM', () => {});\n" +
          'console.log(JSON.stringify({ event: "started", step: 0, rank: 0 }));\nsetInterval(() => {}, 1000);\n',
      );
      const job = simJob({
        jobId: 'stubborn',
        jobGeneration: 1,
        worldSize: 1,
        gpus: [0],
        totalSteps: 10,
        checkpointDir: join(dir.path, 'ckpt'),
        masterPort: 29500,
      });
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: [{ ...job, command: [process.execPath, stubborn] }],
      });
      await harness.agent.start();
      await waitFor(() => harness.agent.workerPids().length === 1, 'the worker');
      // Started (a worker that has not is killed at once: it has trained nothing there is to save).
      const logs = join(harness.stateDir, 'logs');
      await waitFor(
        () =>
          readdirSync(logs).some(
            (f) => f.endsWith('.out') && readFileSync(join(logs, f), 'utf8').includes('started'),
          ),
        'the started line',
      );
      const noticeAt = Date.now();
      imds.setSpotAction('{"action":"stop","time":"2099-01-01T00:00:00Z"}');
      const report = await waitFor(
        () => harness.telemetry.ofType('spotInterruption')[0],
        'the Spot report',
        5_000,
      );
      const took = report.at * 1000 - noticeAt;
      assert.ok(took >= 350 && took < 2_000, `killed at the 400 ms deadline (took ${took} ms)`);
      assert.deepEqual(report.checkpoints, [
        { jobId: 'stubborn', jobGeneration: 1, step: null, timedOut: true },
      ]);
      assert.equal(report.action, 'stop');
    } finally {
      await harness.agent.drainAndStop();
      await assertNoOrphans(harness.pids);
      await imds.close();
      dir.cleanup();
    }
  });
});
