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

describe('tessera job: a job that failed before it ever started (unschedulable)', () => {
  test('says no worker ran instead of pointing at logs that cannot exist', () => {
    const failed = jobView(
      jobItem('u', {
        status: 'failed',
        failureReason:
          'unschedulable: needs 64 GPUs; the fleet holds at most 32 of an allowed type (maxInstances 4)',
        timeline: [
          { at: 1_000, kind: 'submitted' },
          { at: 1_001, kind: 'failed', detail: 'unschedulable: needs 64 GPUs' },
        ],
      }),
    );
    const text = jobDetails(failed, NOW);
    assert.doesNotMatch(text, /tessera logs/);
    assert.match(text, /output: +none: it never started, no worker ran$/m);
  });

  test('a job that started and then failed still points at its logs', () => {
    const failed = jobView(
      jobItem('s', {
        status: 'failed',
        failureReason: 'bad configuration (exit code 2)',
        timeline: [
          { at: 1_000, kind: 'submitted' },
          { at: 1_001, kind: 'started', hosts: ['i-1'] },
          { at: 1_003, kind: 'failed', detail: 'bad configuration (exit code 2)' },
        ],
      }),
    );
    assert.match(jobDetails(failed, NOW), new RegExp(`output: +tessera logs ${failed.jobId}$`, 'm'));
  });
});
