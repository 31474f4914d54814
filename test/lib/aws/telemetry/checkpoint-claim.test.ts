import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkpointClaimStanding } from '../../../../lib/aws/telemetry/checkpoint-claim.ts';

const slice = (hostId: string) => ({ hostId, gpus: [0] });
const moved = {
  jobGeneration: 5,
  allocation: { gpuType: 't4', slices: [slice('new-host')] },
  formerHolders: { jobGeneration: 4, hostIds: ['old-a', 'old-b'] },
};

test('the current holders and the hosts of the previous generation may report checkpoints', () => {
  assert.equal(checkpointClaimStanding(moved, 'new-host', 5), 'counts');
  assert.equal(checkpointClaimStanding(moved, 'old-b', 4), 'counts');
  // A host of the previous generation may still be uploading a checkpoint of an even older one.
  assert.equal(checkpointClaimStanding(moved, 'old-a', 3), 'counts');
});

test('a host that never held the job is refused for the current generation and ignored for older ones', () => {
  assert.equal(checkpointClaimStanding(moved, 'stranger', 5), 'refused');
  assert.equal(checkpointClaimStanding(moved, 'stranger', 4), 'ignored');
  // A former holder claims the current generation, which it does not hold.
  assert.equal(checkpointClaimStanding(moved, 'old-a', 5), 'refused');
  // A generation the job has not reached.
  assert.equal(checkpointClaimStanding(moved, 'new-host', 6), 'ignored');
});

test('a requeued job (no allocation) still hears from the hosts that held its generation', () => {
  const requeued = { jobGeneration: 5, formerHolders: { jobGeneration: 5, hostIds: ['h1'] } };
  assert.equal(checkpointClaimStanding(requeued, 'h1', 5), 'counts');
  assert.equal(checkpointClaimStanding(requeued, 'h2', 5), 'refused');
});
