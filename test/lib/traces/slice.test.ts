import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sliceTrace } from '../../../lib/traces/slice.ts';
import type { Trace, TraceJob } from '../../../lib/traces/types.ts';

const DAY = 86_400;

const traceOf = (submitTimes: readonly number[]): Trace => ({
  name: 't',
  format: 'philly',
  source: 't.csv',
  jobs: [...submitTimes]
    .sort((a, b) => a - b)
    .map((submitTime, i) => ({ id: `j${i}`, submitTime, gpus: 1, duration: 60 })),
  issues: [{ file: 't.csv', line: 3, message: 'kept' }],
});

describe('sliceTrace', () => {
  test('cuts the window, keeps the earliest maxJobs and re-bases to the first kept arrival', () => {
    const trace = traceOf([0, 0.5 * DAY, 1.2 * DAY, 1.7 * DAY, 2 * DAY, 2.5 * DAY]);
    const week = sliceTrace(trace, { skipDays: 1, days: 1 });
    assert.deepEqual(
      week.jobs.map((j) => [j.id, j.submitTime]),
      [
        ['j2', 0],
        ['j3', 0.5 * DAY],
      ],
    );
    assert.deepEqual(week.issues, trace.issues);
    assert.deepEqual(
      sliceTrace(trace, { skipDays: 1, maxJobs: 3 }).jobs.map((j) => j.id),
      ['j2', 'j3', 'j4'],
    );
    assert.equal(sliceTrace(trace).jobs.length, 6);
    assert.deepEqual(sliceTrace(trace, { skipDays: 10 }).jobs, []);
  });

  test('moves deadlines with submit times', () => {
    const job: TraceJob = { id: 'a', submitTime: 2 * DAY, gpus: 1, deadline: 3 * DAY };
    const sliced = sliceTrace({ ...traceOf([]), jobs: [job] }, { skipDays: 1 });
    assert.deepEqual(sliced.jobs[0], { id: 'a', submitTime: 0, gpus: 1, deadline: DAY });
  });

  test('names the option that is out of range', () => {
    const trace = traceOf([0]);
    assert.throws(() => sliceTrace(trace, { skipDays: -1 }), /skipDays/);
    assert.throws(() => sliceTrace(trace, { days: 0 }), /days must be a positive number/);
    assert.throws(() => sliceTrace(trace, { maxJobs: 1.5 }), /maxJobs/);
  });

  test('property: the kept jobs are exactly the earliest in the window, sorted, first at 0', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 30 * DAY, noNaN: true }), { maxLength: 60 }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.option(fc.double({ min: 0.01, max: 20, noNaN: true }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined }),
        (times, skipDays, days, maxJobs) => {
          const trace = traceOf(times);
          const sliced = sliceTrace(trace, {
            skipDays,
            ...(days !== undefined && { days }),
            ...(maxJobs !== undefined && { maxJobs }),
          });
          const from = skipDays * DAY;
          const to = days === undefined ? Number.POSITIVE_INFINITY : from + days * DAY;
          const expected = trace.jobs
            .filter((j) => j.submitTime >= from && j.submitTime < to)
            .slice(0, maxJobs);
          assert.deepEqual(
            sliced.jobs.map((j) => j.id),
            expected.map((j) => j.id),
          );
          const origin = expected[0]?.submitTime ?? 0;
          sliced.jobs.forEach((j, i) => {
            assert.equal(j.submitTime, (expected[i]?.submitTime ?? Number.NaN) - origin);
            if (i > 0) assert.ok(j.submitTime >= sliced.jobs[i - 1]!.submitTime);
          });
          if (sliced.jobs.length > 0) assert.equal(sliced.jobs[0]?.submitTime, 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
