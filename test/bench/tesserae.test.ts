import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { claims, roundTime, simulationRow, TESSERAE_PAPER } from '../../bench/tesserae.ts';
import { finishTimeFairness } from '../../bench/tesserae-metrics.ts';
import {
  TESSERAE_DATA_PARALLEL,
  TESSERAE_LANGUAGE_MODELS,
  tesseraeWorkload,
} from '../../bench/tesserae-workload.ts';
import type { BenchRow } from '../../bench/types.ts';
import { loadCluster } from '../../lib/clusters/load.ts';
import { loadDefaultPerfModel } from '../../lib/data/perf.ts';
import type { SimResult } from '../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../support/fixtures.ts';

const perf = loadDefaultPerfModel({ onWarning: () => {} });

describe('tessera bench tesserae', () => {
  test("workload: Tesserae's models, language models only on several GPUs, seeded", () => {
    const options = {
      shape: 'shockwave',
      jobs: 200,
      ratePerHour: 80,
      seed: 3,
      referenceGpuType: 'A100-40GB',
      perf,
    } as const;
    const jobs = tesseraeWorkload(options);
    assert.equal(jobs.length, 200);
    assert.deepEqual(tesseraeWorkload(options), jobs);
    const language: readonly string[] = TESSERAE_LANGUAGE_MODELS;
    for (const job of jobs) {
      if (language.includes(job.model)) {
        assert.ok(job.gpus >= 2, `${job.id}: ${job.model} on one GPU`);
        assert.equal(job.batchSize, 512);
      } else {
        assert.ok((TESSERAE_DATA_PARALLEL as readonly string[]).includes(job.model));
        assert.ok([32, 64].includes(job.batchSize / job.gpus), `${job.id}: batch ${job.batchSize}`);
      }
    }
    assert.ok(new Set(jobs.map((j) => j.model)).size >= 5);
  });

  test('simulation rows carry suite, setup, policy, avgJct, makespan, migrations and the FTF ratio', () => {
    const setup = { cluster: 'tesserae-32', shape: 'shockwave', jobs: 20, policies: ['tesserae-t'] } as const;
    const jobs = tesseraeWorkload({
      ...setup,
      ratePerHour: 80,
      seed: 0,
      referenceGpuType: 'A100-40GB',
      perf,
    });
    const row = simulationRow(setup, loadCluster('tesserae-32'), jobs, 'tesserae-t', {
      perf,
      truth: perf,
      seed: 0,
    });
    for (const field of ['suite', 'setup', 'policy', 'avgJct', 'makespan', 'migrations', 'ftfRatio'])
      assert.ok(field in row, `missing ${field}`);
    assert.equal(row.suite, 'tesserae');
    assert.equal(row.completed, 20);
  });

  test('scalability rows carry gpus, activeJobs and seconds, split by stage', () => {
    const row = roundTime({ gpus: 16, jobs: 40, policies: ['tesserae-t'] }, 'tesserae-t', perf, 0, true);
    assert.equal(row.gpus, 16);
    assert.equal(row.activeJobs, 41);
    assert.ok(typeof row.seconds === 'number' && row.seconds >= 0);
    for (const stage of ['placeSeconds', 'packSeconds', 'migrateSeconds']) assert.ok(stage in row);
  });

  test("claims: the paper's figures beside ratios measured in the same run", () => {
    const sim = (
      setup: string,
      policy: string,
      avgJct: number,
      makespan: number,
      migrations: number,
    ): BenchRow => ({
      suite: 'tesserae',
      setup,
      policy,
      avgJct,
      makespan,
      migrations,
    });
    const rows = [
      sim('a', 'tiresias', 200, 110, 0),
      sim('a', 'gavel', 300, 120, 50),
      sim('a', 'tesserae-t', 100, 100, 60),
      sim('a', 'tesserae-t-naive', 150, 105, 100),
    ];
    const scale: BenchRow[] = [
      { suite: 'tesserae', setup: 's', policy: 'tesserae-t', gpus: 256, activeJobs: 2049, seconds: 0.2 },
    ];
    const out = [...claims(rows, scale)];
    const find = (metric: string) => out.find((r) => r.metric === metric)!;
    assert.equal(find('avgJct speed-up, up to').ours, 3);
    assert.equal(find('avgJct speed-up, up to').paper, TESSERAE_PAPER.avgJctSpeedup);
    assert.match(String(find('avgJct speed-up, up to').detail), /vs gavel on a/);
    assert.equal(find('makespan speed-up, up to').ours, 1.2);
    assert.equal(find("fewer migrations than Gavel's rule").ours, 0.4);
    assert.equal(find('round seconds, 256 GPUs × 2,048 jobs').ours, 0.2);
  });

  test('finish-time fairness: JCT over the isolated time stretched by the contention it saw', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 2 }]);
    const jobs = [spec({ id: 'x', gpus: 2, iterations: 200, submitTime: 0 })];
    // 2 GPUs at 1 it/s each: 100 s alone. Four jobs active all along on 2 GPUs: fair share 0.5 GPU → ideal 400 s.
    const result = {
      totalGpus: 2,
      jobs: [{ id: 'x', outcome: 'completed', jct: 800, submitTime: 0 }],
      timeline: [
        { t: 0, busyGpus: 2, runningJobs: 1, waitingJobs: 3 },
        { t: 1_000, busyGpus: 2, runningJobs: 1, waitingJobs: 3 },
      ],
    } as unknown as SimResult;
    const ftf = finishTimeFairness(result, jobs, c, linearPerf());
    assert.equal(ftf.mean, 2);
    assert.equal(ftf.max, 2);
  });
});
