/** Item builders for the AWS adapter tests: valid by default, any field overridable. */
import type { HostItem } from '../../../../lib/aws/items/host-item.ts';
import type { JobItem } from '../../../../lib/aws/items/job-item.ts';
import type { Allocation } from '../../../../lib/core/model/plan.ts';

export const hostItem = (hostId: string, overrides: Partial<HostItem> = {}): HostItem => ({
  hostId,
  state: 'active',
  stateChangedAt: 0,
  gpuType: 'A10G',
  gpuCount: 4,
  zone: 'us-east-1a',
  rack: 'rack-1',
  network: 'net-1',
  desiredGeneration: 0,
  ...overrides,
});

export const jobItem = (jobId: string, overrides: Partial<JobItem> = {}): JobItem => ({
  jobId,
  tenant: 'alice',
  status: 'queued',
  submittedAt: 1_000,
  updatedAt: 1_000,
  fingerprint: 'f',
  spec: {
    id: jobId,
    tenant: 'alice',
    model: 'resnet50',
    batchSize: 64,
    gpus: 2,
    iterations: 1000,
    priority: 0,
    packable: false,
    submitTime: 1,
  },
  launch: { command: ['python3', 'train.py'] },
  progress: 0,
  attainedService: 0,
  runningSeconds: 0,
  waitingSince: 1,
  jobGeneration: 0,
  checkpointStep: -1,
  resumeStep: -1,
  restarts: 0,
  migrations: 0,
  ...overrides,
});

export const allocation = (slices: [hostId: string, gpus: number[]][], gpuType = 'A10G'): Allocation => ({
  gpuType,
  slices: slices.map(([hostId, gpus]) => ({ hostId, gpus })),
});

/** A job holding GPUs since `since` (seconds). */
export const runningJob = (jobId: string, alloc: Allocation, overrides: Partial<JobItem> = {}): JobItem =>
  jobItem(jobId, {
    status: 'running',
    allocation: alloc as JobItem['allocation'],
    accountedAt: 10,
    runningSince: 10,
    jobGeneration: 1,
    masterPort: 29500,
    placementLevel: 'machine',
    ...overrides,
  });
