import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { offeredLoad } from '../../../lib/sim/offered-load.ts';
import { loadWorkload } from '../../../lib/sim/run.ts';
import { cluster, linearPerf, spec } from '../../support/fixtures.ts';
import { fixturePath, readFixture } from '../traces/fixtures.ts';

describe('offered load', () => {
  const c = cluster([{ gpuType: 'V100', hosts: 1, gpusPerHost: 8 }]);
  const perf = linearPerf({ V100: 1 }); // 1 it/s per GPU on one machine
  const V100_HOSTS_OF_8 = { gpuType: 'V100', hostGpus: 8 };

  test('GPU-seconds alone on the reference allocation over cluster GPU-seconds during the arrivals', () => {
    const jobs = [
      spec({ id: 'a', gpus: 2, iterations: 200, submitTime: 0 }), // 100 s on 2 GPUs: 200 GPU-s
      spec({ id: 'b', gpus: 4, iterations: 200, submitTime: 100 }), // 50 s on 4 GPUs: 200 GPU-s
    ];
    assert.equal(offeredLoad(jobs, c, perf, V100_HOSTS_OF_8), 400 / (8 * 100));
    assert.equal(offeredLoad([], c, perf, V100_HOSTS_OF_8), 0);
  });

  test('all arrivals at once offer infinite load', () => {
    const jobs = [spec({ id: 'a', gpus: 1, iterations: 10 }), spec({ id: 'b', gpus: 1, iterations: 10 })];
    assert.equal(offeredLoad(jobs, c, perf, V100_HOSTS_OF_8), Number.POSITIVE_INFINITY);
  });

  test('a Shockwave trace: Σ GPUs × recorded duration ÷ (cluster GPUs × arrival span)', () => {
    const rows = readFixture('shockwave-120jobs.trace')
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const demand = rows.reduce((s, f) => s + Number(f[6]) * Number(f[10]), 0);
    const arrivals = rows.map((f) => Number(f[11]));
    const expected = demand / (80 * (Math.max(...arrivals) - Math.min(...arrivals)));
    const workload = loadWorkload({
      trace: fixturePath('shockwave-120jobs.trace'),
      cluster: 'tesserae-80-v100',
    });
    assert.ok(
      Math.abs(workload.offeredLoad / expected - 1) < 1e-3,
      `${workload.offeredLoad} vs ${expected} (rounding to whole iterations only)`,
    );
  });
});
