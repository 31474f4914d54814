import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  nextFireTime,
  parseScheduleExpression,
  ScheduleExpressionError,
} from '../../../../../lib/local/endpoint/events/schedule.ts';

const at = (iso: string) => Date.parse(iso);
const next = (expression: string, after: string, anchor?: string) => {
  const t = nextFireTime(
    parseScheduleExpression(expression),
    at(after),
    anchor === undefined ? undefined : at(anchor),
  );
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe('schedule expressions', () => {
  test('rate: singular for 1, plural otherwise; periods counted from the anchor', () => {
    assert.deepEqual(parseScheduleExpression('rate(1 minute)'), {
      kind: 'rate',
      expression: 'rate(1 minute)',
      periodMs: 60_000,
    });
    assert.equal(
      (parseScheduleExpression('rate(12 hours)') as { periodMs: number }).periodMs,
      12 * 3_600_000,
    );
    assert.equal(
      next('rate(5 minutes)', '2030-01-01T00:07:00Z', '2030-01-01T00:00:30Z'),
      '2030-01-01T00:10:30.000Z',
    );
    assert.equal(
      next('rate(5 minutes)', '2030-01-01T00:10:30Z', '2030-01-01T00:00:30Z'),
      '2030-01-01T00:15:30.000Z',
    );
    for (const bad of [
      'rate(1 minutes)',
      'rate(2 minute)',
      'rate(0 minutes)',
      'rate(5 seconds)',
      'rate(x minutes)',
    ]) {
      assert.throws(() => parseScheduleExpression(bad), ScheduleExpressionError, bad);
    }
  });

  test('cron: six fields, ? in day-of-month or day-of-week, UTC', () => {
    assert.equal(next('cron(0/15 * * * ? *)', '2030-01-01T00:14:59Z'), '2030-01-01T00:15:00.000Z');
    assert.equal(next('cron(0 10 * * ? *)', '2030-01-01T10:00:00Z'), '2030-01-02T10:00:00.000Z');
    // 2030-01-01 is a Tuesday; MON-FRI at 18:30 → same day.
    assert.equal(next('cron(30 18 ? * MON-FRI *)', '2030-01-01T12:00:00Z'), '2030-01-01T18:30:00.000Z');
    assert.equal(next('cron(30 18 ? * SAT *)', '2030-01-01T12:00:00Z'), '2030-01-05T18:30:00.000Z');
    assert.equal(next('cron(0 0 1 JAN,JUL ? *)', '2030-02-01T00:00:00Z'), '2030-07-01T00:00:00.000Z');
    assert.equal(next('cron(0 0 29 2 ? *)', '2030-01-01T00:00:00Z'), '2032-02-29T00:00:00.000Z');
    assert.equal(next('cron(0 0 1 1 ? 2031)', '2032-01-01T00:00:00Z'), undefined);
  });

  test('cron errors name the field', () => {
    const cases: [string, RegExp][] = [
      ['cron(0 10 * * *)', /needs 6 fields/],
      ['cron(0 10 * * * *)', /exactly one of day-of-month and day-of-week must be \?/],
      ['cron(61 10 * * ? *)', /minutes: 61 is outside 0-59/],
      ['cron(0 10 L * ? *)', /L, W and # are not supported/],
      ['cron(0 10 ? * FOO *)', /day-of-week: 'FOO' is not a number/],
      ['cron(0 5-2 * * ? *)', /hours: range 5-2 runs backwards/],
      ['every minute', /expected rate\(value unit\) or cron\(fields\)/],
    ];
    for (const [expression, message] of cases)
      assert.throws(() => parseScheduleExpression(expression), message, expression);
  });
});
