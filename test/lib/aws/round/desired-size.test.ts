import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fitDesiredStates } from '../../../../lib/aws/round/desired-size.ts';
import type { DesiredJob } from '../../../../lib/protocol/desired-state.ts';

const job = (jobId: string, commandBytes: number): DesiredJob => ({
  jobId,
  jobGeneration: 1,
  worldSize: 1,
  totalSteps: 10,
  checkpointUri: 'file:///c',
  resumeStep: -1,
  masterAddr: 'h',
  masterPort: 29500,
  command: ['x'.repeat(commandBytes)],
  workers: [{ rank: 0, localRank: 0, gpuIndices: [0] }],
});

describe('fitDesiredStates', () => {
  test('hosts within the limit keep everything', () => {
    assert.deepEqual(fitDesiredStates(new Map([['h1', [job('a', 100), job('b', 100)]]]), 10_000), []);
  });

  test('an over-full host gives up its largest jobs first, each failing with the reason, and nobody else', () => {
    const byHost = new Map([
      ['h1', [job('small', 1000), job('huge', 9000), job('mid', 3000)]],
      ['h2', [job('other', 1000)]],
    ]);
    const evicted = fitDesiredStates(byHost, 6000);
    assert.deepEqual(
      evicted.map((e) => e.jobId),
      ['huge'],
    );
    assert.match(evicted[0]!.reason, /do not fit in host h1's desired state/);
  });
});
