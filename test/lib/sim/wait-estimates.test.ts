import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RoundOutput } from '../../../lib/core/framework/round.ts';
import type { WaitInfo } from '../../../lib/core/framework/wait-info.ts';
import type { Allocation } from '../../../lib/core/model/plan.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { WaitEstimateRecorder, waitEstimateQuality } from '../../../lib/sim/wait-estimates.ts';
import { cluster, linearPerf, spec } from '../../support/fixtures.ts';

const output = (planned: string[], waiting: Record<string, number | undefined>): RoundOutput =>
  ({
    plan: new Map(planned.map((id) => [id, {} as Allocation])),
    waiting: new Map(
      Object.entries(waiting).map(([id, estimatedStart]): [string, WaitInfo] => [
        id,
        { queuePosition: 1, waitReason: 'r', ...(estimatedStart !== undefined ? { estimatedStart } : {}) },
      ]),
    ),
  }) as unknown as RoundOutput;

describe('estimated vs actual starts', () => {
  test('each estimate is resolved against the next start of its job, per wait', () => {
    const r = new WaitEstimateRecorder();
    r.onRound(0, output([], { a: 100, b: undefined }));
    r.onRound(60, output([], { a: 150, b: 500 }));
    r.onRound(120, output(['a'], { b: 400 }));
    // a runs, is preempted at 200 and waits again; its new estimate resolves against its restart.
    r.onRound(200, output([], { a: 260 }));
    r.onRound(300, output(['a', 'b'], {}));
    assert.deepEqual(
      r.samples.map((s) => [s.jobId, s.at, s.estimate, s.actual, s.waitingSince]),
      [
        ['a', 0, 100, 120, 0],
        ['a', 60, 150, 120, 0],
        ['a', 200, 260, 300, 200],
        ['b', 60, 500, 300, 0],
        ['b', 120, 400, 300, 0],
      ],
    );
    const q = waitEstimateQuality(r.samples);
    assert.equal(q.waits, 3);
    assert.equal(q.samples, 5);
    assert.equal(q.medianAbsError, 40); // errors 20, 30, 40, 200, 100
    assert.equal(q.medianFirstAbsError, 40); // first of each wait: 20, 40, 200
    assert.equal(q.medianBias, 30); // -40, -20, 30, 100, 200
    assert.equal(q.medianWait, 120); // 120, 100, 300
  });

  test('through the simulator: a queue on one host, estimates close to the truth when the perf model is the truth', () => {
    const perf = linearPerf();
    const jobs = Array.from({ length: 6 }, (_, i) =>
      spec({ id: `q${i}`, gpus: 4, iterations: 4000, submitTime: 0 }),
    );
    const recorder = new WaitEstimateRecorder();
    simulate({
      cluster: cluster([{ gpuType: 'A100-40GB', hosts: 1, gpusPerHost: 8 }]),
      jobs,
      policy: getPolicy('yarn-cs'),
      perf,
      truth: perf,
      config: { seed: 0, restartSeconds: 30 },
      onRound: recorder.onRound,
    });
    const q = waitEstimateQuality(recorder.samples);
    assert.equal(q.waits, 4, 'two start at once, four wait');
    // Exact up to the round interval: a job starts at the first round after GPUs free up.
    assert.ok(q.medianAbsError <= 60, `median error ${q.medianAbsError} s`);
  });
});
