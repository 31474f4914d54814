import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leavingJobIds } from '../../../../lib/aws/round/leaving-jobs.ts';

const reported = (jobId: string, phase: 'running' | 'stopping' | 'killing' | 'backoff' | 'stopped') => ({
  jobId,
  jobGeneration: 1,
  phase,
  step: 10,
  checkpointStep: null,
  crashes: 0,
});
const host = {
  dataAccess: { scope: 'f', expiresAt: 1, jobIds: ['moved', 'kept', 'done'] },
  actual: {
    draining: false,
    evacuating: null,
    gpuUtilization: null,
    jobs: [
      reported('moved', 'stopping'),
      reported('kept', 'running'),
      reported('done', 'stopped'),
      reported('foreign', 'running'),
    ],
  },
};

test('jobs a host still stops after they left its desired state, among those it was credentialed for', () => {
  assert.deepEqual(leavingJobIds(host, [{ jobId: 'kept' }]), ['moved']);
  // A job it names that the control plane never gave it is not one (no access by heartbeat).
  assert.ok(!leavingJobIds(host, []).includes('foreign'));
  assert.deepEqual(leavingJobIds(host, []), ['kept', 'moved']);
  assert.deepEqual(leavingJobIds({ dataAccess: undefined, actual: host.actual }, []), []);
});

test('a job moved away before any heartbeat named it: the previous desired state keeps it', () => {
  const placed = {
    dataAccess: { scope: 'f', expiresAt: 1, jobIds: ['quick'] },
    desired: { hostId: 'h', generation: 2, drain: false, jobs: [{ jobId: 'quick' }] },
  } as unknown as Parameters<typeof leavingJobIds>[0];
  assert.deepEqual(leavingJobIds(placed, []), ['quick']);
  assert.deepEqual(leavingJobIds(placed, [{ jobId: 'quick' }]), []);
});
