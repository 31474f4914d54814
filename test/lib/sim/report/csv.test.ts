import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CSV_COLUMNS, csvField, renderCsv } from '../../../../lib/sim/report/csv.ts';
import type { PolicyRun } from '../../../../lib/sim/run.ts';
import { syntheticRun } from './fixtures.ts';

describe('csvField', () => {
  test('leaves plain text and numbers alone', () => {
    assert.equal(csvField('fifo'), 'fifo');
    assert.equal(csvField(42), '42');
  });

  test('quotes commas, quotes, line breaks and edge whitespace, doubling inner quotes', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\rhere'), '"cr\rhere"');
    assert.equal(csvField(' padded'), '" padded"');
  });

  test('missing and non-finite numbers', () => {
    assert.equal(csvField(undefined), '');
    assert.equal(csvField(Number.NaN), '');
    assert.equal(csvField(Number.POSITIVE_INFINITY), 'inf');
    assert.equal(csvField(Number.NEGATIVE_INFINITY), '-inf');
  });

  test('rounds numbers to milliseconds', () => {
    assert.equal(csvField(1234.56789), '1234.568');
    assert.equal(csvField(0.1 + 0.2), '0.3');
  });
});

describe('renderCsv', () => {
  const runs: PolicyRun[] = [
    syntheticRun({ policy: 'fifo', jobs: 7, timelinePoints: 3, spanSeconds: 3600, seed: 1 }),
    syntheticRun({
      policy: 'odd, "name"\nhere',
      jobs: 5,
      timelinePoints: 3,
      spanSeconds: 3600,
      seed: 2,
      completedShare: 0.5,
    }),
  ];
  const text = renderCsv(runs);

  test('starts with the header and has one line per (policy, job)', () => {
    assert.equal(text.split('\n')[0], CSV_COLUMNS.join(','));
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, 12);
    assert.deepEqual(Object.keys(rows[0]!), [...CSV_COLUMNS]);
  });

  test('round-trips through a CSV parser, awkward policy names included', () => {
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const records = runs.flatMap((r) => r.result.jobs.map((job) => ({ policy: r.result.policy, job })));
    rows.forEach((row, i) => {
      const { policy, job } = records[i]!;
      assert.equal(row.policy, policy);
      assert.equal(row.id, job.id);
      assert.equal(row.outcome, job.outcome);
      assert.equal(Number(row.gpus), job.gpus);
      assert.equal(row.jct, job.jct === undefined ? '' : String(Math.round(job.jct * 1000) / 1000));
      assert.equal(row.reason, job.reason ?? '');
      assert.ok(Math.abs(Number(row.submitTime) - job.submitTime) <= 0.0005);
    });
  });

  test('an unschedulable job has empty start, finish and jct but keeps its reason', () => {
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    const unschedulable = rows.find((r) => r.outcome === 'unschedulable');
    assert.ok(unschedulable, 'fixture has an unschedulable job');
    assert.equal(unschedulable.firstStart, '');
    assert.equal(unschedulable.finishTime, '');
    assert.equal(unschedulable.jct, '');
    assert.notEqual(unschedulable.reason, '');
  });

  test('no runs: just the header', () => {
    assert.equal(renderCsv([]), `${CSV_COLUMNS.join(',')}\n`);
  });
});
