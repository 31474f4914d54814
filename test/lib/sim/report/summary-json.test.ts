import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSummaryJson } from '../../../../lib/sim/report/summary-json.ts';
import { syntheticRun } from './fixtures.ts';

test('summaries as a pretty JSON array in run order; NaN statistics become null', () => {
  const runs = [
    syntheticRun({ policy: 'fifo', jobs: 10, timelinePoints: 5, spanSeconds: 3_600, seed: 1 }),
    syntheticRun({
      policy: 'stuck',
      jobs: 10,
      timelinePoints: 5,
      spanSeconds: 3_600,
      seed: 2,
      completedShare: 0,
    }),
  ];
  const text = renderSummaryJson(runs);
  assert.match(text, /^\[\n {2}\{\n {4}"policy": "fifo",/);
  assert.ok(text.endsWith(']\n'));
  const parsed = JSON.parse(text) as Record<string, unknown>[];
  assert.deepEqual(parsed[0], runs[0]!.summary);
  assert.equal(parsed[1]!.policy, 'stuck');
  assert.equal(parsed[1]!.avgJct, null);
  assert.equal(renderSummaryJson([]), '[]\n');
});
