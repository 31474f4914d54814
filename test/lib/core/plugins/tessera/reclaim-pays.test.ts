import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { PerfModel } from '../../../../../lib/core/model/perf.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, on, queued, running } from '../../../../support/fixtures.ts';

// One machine of 4 V100s and two of 4 T4s. A vgg19 runs twice as fast on a V100 as on a T4, a resnet50 15 % faster;
// a job's rate is its GPU count × that speed (iterations per second). `long` (guaranteed, first in the order under
// the makespan guard) holds 4 T4s for ~25 M s; `elastic` (a resnet50) holds the 4 V100s, ~43,000 s from its end; the
// arrival (a vgg19, 4 GPUs) is shorter, so it comes before `elastic` in the order. Its best Cell is on the V100s,
// 100 % faster than the 4 T4s left free: Crius's margin (10 %) alone lets it displace `elastic` onto those T4s, and
// `elastic` does not win them back (15 % faster is not worth moving the arrival, which would lose half its rate).
const c = cluster([
  { gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'T4', hosts: 2, gpusPerHost: 4 },
]);
const v100 = c.hosts.find((h) => h.gpuType === 'V100-16GB')!.id;
const t4 = c.hosts.find((h) => h.gpuType === 'T4')!.id;
const speed: Record<string, Record<string, number>> = {
  vgg19: { 'V100-16GB': 2, T4: 1 },
  resnet50: { 'V100-16GB': 1.15, T4: 1 },
};
const perf: PerfModel = {
  name: 'per-model-test',
  throughput: (q) => {
    const rate = q.gpus * (speed[q.model]?.[q.gpuType] ?? 1) * (q.shape.level === 'machine' ? 1 : 0.5);
    return { iterationsPerSecond: rate, computeSeconds: 1 / rate, commSeconds: 0, source: 'analytic' };
  },
  colocation: () => ({ normalized: [0.5, 0.5], source: 'estimated' }),
};

const jobs = (arrivalIterations: number): JobState[] => [
  running({ id: 'long', gpus: 4, iterations: 100_000_000, packable: false }, on('T4', [t4, [0, 1, 2, 3]])),
  running(
    {
      id: 'elastic',
      model: 'resnet50',
      gpus: 4,
      iterations: 200_000,
      packable: false,
      elastic: { maxP: 4, minGpus: 0, heterogeneous: false },
    },
    on('V100-16GB', [v100, [0, 1, 2, 3]]),
  ),
  queued({ id: 'arrival', model: 'vgg19', gpus: 4, iterations: arrivalIterations, packable: false }),
];

const typeOf = (all: readonly JobState[]) => {
  const { plan } = scheduleRound({
    now: 0,
    cluster: c,
    jobs: all,
    state: initialSchedulerState(),
    policy: getPolicy('tessera'),
    perf,
  });
  return { arrival: plan.get('arrival')?.gpuType, elastic: plan.get('elastic')?.gpuType };
};

describe('tessera displaces an elastic job for a faster Cell only where the gain beats what the displaced job loses', () => {
  test('a short arrival runs on the free T4s: 25 s saved would cost the elastic job a restart and 3 s of progress', () => {
    // 200 iterations: 25 s on the V100s, 50 s on the T4s. Displaced, `elastic` restarts (30 s) and runs 13 % slower
    // while the arrival runs (3.3 s): 33 s against 25 s.
    assert.deepEqual(typeOf(jobs(200)), { arrival: 'T4', elastic: 'V100-16GB' });
  });

  test('a long arrival still takes the V100s: 5,000 s saved against 682 s lost', () => {
    // 40,000 iterations: 5,000 s on the V100s, 10,000 s on the T4s; `elastic` loses a restart and 13 % of 5,000 s.
    assert.deepEqual(typeOf(jobs(40_000)), { arrival: 'V100-16GB', elastic: 'T4' });
  });
});
