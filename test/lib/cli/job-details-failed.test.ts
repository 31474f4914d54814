import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobView } from '../../../functions/api/views.ts';
import { jobDetails } from '../../../lib/cli/job-format.ts';
import { jobItem } from '../aws/support/items.ts';

const NOW = Date.parse('2026-11-23T12:00:00Z');

describe('tessera job: a failed job', () => {
  test('shows its reason and where the workers’ own output is', () => {
    const failed = jobView(
      jobItem('f', { status: 'failed', failureReason: 'bad configuration (exit code 2)' }),
    );
    const text = jobDetails(failed, NOW);
    assert.match(text, /status: +failed — bad configuration \(exit code 2\)/);
    assert.match(text, new RegExp(`output: +tessera logs ${failed.jobId}$`, 'm'));
  });

  test('other jobs have no such line', () => {
    assert.doesNotMatch(jobDetails(jobView(jobItem('r', { status: 'running' })), NOW), /tessera logs/);
  });
});
