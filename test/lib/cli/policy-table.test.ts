import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { policyTable } from '../../../lib/cli/policy-table.ts';

describe('policyTable', () => {
  const result = {
    policy: 'srtf',
    jobs: 10,
    completed: 9,
    avgJct: 5400,
    p99Jct: Number.POSITIVE_INFINITY,
    gpuUtilization: 0.4567,
    cost: 0,
    gpuHours: 12.6,
    wallSeconds: 1.234,
  };

  test('times in hours with two decimals, the unit in each time header', () => {
    const [header, , row] = policyTable(
      [result],
      ['policy', 'done', 'avgJct', 'p99Jct', 'gpuUtilization'],
      'h',
    ).split('\n');
    assert.deepEqual(header!.split(/ {2,}/), ['policy', 'done', 'avg JCT h', 'p99 JCT h', 'util %']);
    assert.deepEqual(row!.split(/ +/), ['srtf', '9', '1.50', '–', '45.7']);
  });

  test('times in whole seconds; done of jobs; no cost where zero; a missing field is –', () => {
    const [header, , row] = policyTable(
      [result],
      ['policy', 'doneOfJobs', 'avgJct', 'gpuHours', 'cost', 'wallSeconds', 'cpuSeconds'],
      's',
    ).split('\n');
    assert.deepEqual(header!.split(/ {2,}/), [
      'policy',
      'done',
      'avg JCT s',
      'GPU-h',
      'cost $',
      'wall s',
      'CPU s',
    ]);
    assert.deepEqual(row!.split(/ +/), ['srtf', '9/10', '5400', '13', '–', '1.23', '–']);
  });
});
