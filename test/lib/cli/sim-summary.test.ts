import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notCompletedText, simSummaryText, simTimeUnit } from '../../../lib/cli/sim-summary.ts';
import type { JobRecord } from '../../../lib/sim/simulator.ts';
import type { SimSummary } from '../../../lib/sim/summary.ts';

const summary = (policy: string, avgJct: number): SimSummary => ({
  policy,
  cluster: 'c',
  trace: 't',
  jobs: 60,
  completed: 60,
  unschedulable: 0,
  unfinished: 0,
  avgJct,
  p50Jct: avgJct / 2,
  p95Jct: avgJct * 2,
  p99Jct: avgJct * 3,
  makespan: 1800,
  avgQueueing: 5,
  p95Queueing: 10,
  p99Queueing: 20,
  gpuUtilization: 0.25,
  gpuHours: 3,
  migrations: 0,
  restarts: 1,
  commLatency: 0,
  cost: 0,
  unpricedGpuHours: 3,
  jctLowerBound: avgJct / 2,
  rounds: 30,
  simulatedSeconds: 1800,
  wallSeconds: 0.05,
});

test('minute-long jobs in seconds (in hours they would all read 0.01); hours once any policy averages an hour', () => {
  assert.equal(simTimeUnit([summary('fifo', 50), summary('srtf', 40)]), 's');
  assert.equal(simTimeUnit([summary('fifo', 3600), summary('srtf', 40)]), 'h');
  const short = simSummaryText([summary('fifo', 50)]).split('\n');
  assert.match(
    short[0]!,
    /^policy +jobs +done +avg JCT s +p50 JCT s +p95 JCT s +p99 JCT s +makespan s +queue s /,
  );
  assert.match(short[2]!, /^fifo +60 +60 +50 +25 +100 +150 +1800 +5 +25\.0 +0 +1 +25 +0\.05$/);
  assert.match(short[3]!, /^s: seconds of simulated time;/);
  const long = simSummaryText([summary('fifo', 7200)]).split('\n');
  assert.match(long[2]!, /^fifo +60 +60 +2\.00 +1\.00 +4\.00 +6\.00 +0\.50 +0\.00 /);
  assert.match(long[3]!, /^h: hours of simulated time;/);
});

test('jobs not completed: one line per job and outcome, naming the policies, "every policy" when all', () => {
  const record = (id: string, outcome: JobRecord['outcome'], reason?: string) =>
    ({ id, model: 'resnet50', gpus: 8, outcome, ...(reason ? { reason } : {}) }) as JobRecord;
  const done = record('a', 'completed');
  const big = record('big', 'unschedulable', 'needs 8 GPUs of one type; the largest allowed type has 4');
  assert.equal(
    notCompletedText([
      { policy: 'fifo', jobs: [done, big, record('late', 'unfinished')] },
      { policy: 'srtf', jobs: [done, big, record('late', 'completed')] },
    ]),
    [
      'jobs not completed:',
      '  big (resnet50, 8 GPUs): unschedulable: needs 8 GPUs of one type; the largest allowed type has 4 (every policy)',
      '  late (resnet50, 8 GPUs): unfinished (fifo)',
    ].join('\n'),
  );
  assert.equal(notCompletedText([{ policy: 'fifo', jobs: [done] }]), '', 'nothing when all completed');
});
