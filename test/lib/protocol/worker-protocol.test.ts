import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DesiredJob } from '../../../lib/protocol/desired-state.ts';
import { buildWorkerEnv, classifyExit, parseReportLine } from '../../../lib/protocol/worker-protocol.ts';

const job: DesiredJob = {
  jobId: 'job-1',
  jobGeneration: 4,
  worldSize: 2,
  maxP: 4,
  totalSteps: 500,
  checkpointUri: 'file:///ckpt/job-1',
  resumeStep: 120,
  masterAddr: '10.0.0.7',
  masterPort: 29501,
  command: ['trainer'],
  workers: [],
};

describe('buildWorkerEnv', () => {
  test("sets every protocol variable, CUDA_VISIBLE_DEVICES and torch.distributed's env:// variables", () => {
    const worker = { rank: 1, localRank: 1, gpuIndices: [5], ests: [2, 3] };
    const env = buildWorkerEnv({ ...job, env: { TESSERA_SEED: '3' }, workers: [worker] }, worker, 140, {
      PATH: '/usr/bin',
      HOME: '/root',
    });
    assert.deepEqual(env, {
      PATH: '/usr/bin',
      HOME: '/root',
      TESSERA_SEED: '3',
      TESSERA_JOB_ID: 'job-1',
      TESSERA_GENERATION: '4',
      TESSERA_RANK: '1',
      TESSERA_WORLD_SIZE: '2',
      TESSERA_LOCAL_RANK: '1',
      TESSERA_MASTER_ADDR: '10.0.0.7',
      TESSERA_MASTER_PORT: '29501',
      TESSERA_MAX_P: '4',
      TESSERA_ESTS: '2,3',
      TESSERA_TOTAL_STEPS: '500',
      TESSERA_CHECKPOINT_URI: 'file:///ckpt/job-1',
      TESSERA_RESUME_STEP: '140',
      CUDA_VISIBLE_DEVICES: '5',
      MASTER_ADDR: '10.0.0.7',
      MASTER_PORT: '29501',
      WORLD_SIZE: '2',
      RANK: '1',
      LOCAL_RANK: '1',
      LOCAL_WORLD_SIZE: '1',
    });
  });

  test('the global batch reaches the trainer, which divides it by maxP', () => {
    const worker = { rank: 0, localRank: 0, gpuIndices: [0] };
    const env = buildWorkerEnv({ ...job, globalBatchSize: 64, workers: [worker] }, worker, -1, {});
    assert.equal(env.TESSERA_GLOBAL_BATCH_SIZE, '64');
  });

  test('a gang over two hosts: global rank and world size, local rank and size on this host', () => {
    // Ranks 2 and 3 of a 4-worker job on its second host (rank 0 on 10.0.0.7).
    const workers = [
      { rank: 2, localRank: 0, gpuIndices: [0] },
      { rank: 3, localRank: 1, gpuIndices: [1] },
    ];
    const env = buildWorkerEnv({ ...job, worldSize: 4, workers }, workers[1]!, -1, {});
    assert.deepEqual(
      [env.MASTER_ADDR, env.MASTER_PORT, env.WORLD_SIZE, env.RANK, env.LOCAL_RANK, env.LOCAL_WORLD_SIZE],
      ['10.0.0.7', '29501', '4', '3', '1', '2'],
    );
    assert.deepEqual([env.TESSERA_RANK, env.TESSERA_WORLD_SIZE, env.TESSERA_LOCAL_RANK], ['3', '4', '1']);
  });

  test("the agent's own TESSERA_* settings do not leak into workers; absent optionals stay absent", () => {
    const env = buildWorkerEnv(
      { ...job, maxP: undefined },
      { rank: 0, localRank: 0, gpuIndices: [0, 1] },
      -1,
      { TESSERA_AGENT_DESIRED_STATE: 'dynamodb:Hosts', TESSERA_RANK: '9', LANG: 'C' },
    );
    assert.equal(env.TESSERA_AGENT_DESIRED_STATE, undefined);
    assert.equal(env.TESSERA_RANK, '0');
    assert.equal(env.TESSERA_MAX_P, undefined);
    assert.equal(env.TESSERA_ESTS, undefined);
    assert.equal(env.TESSERA_GLOBAL_BATCH_SIZE, undefined);
    assert.equal(env.TESSERA_RESUME_STEP, '-1');
    assert.equal(env.CUDA_VISIBLE_DEVICES, '0,1');
    assert.equal(env.LANG, 'C');
  });
});

describe('parseReportLine', () => {
  test('reads every report event', () => {
    const lines = [
      '{"event":"started","step":0,"rank":0,"ests":[0,1]}',
      '{"event":"progress","step":5,"stepTime":0.25,"samplesPerSecond":512.5,"rank":1}',
      '{"event":"checkpoint","step":5,"uri":"s3://b/j/step-5"}',
      '{"event":"finished","step":10}',
      '{"event":"error","message":"CUDA out of memory"}',
    ];
    assert.deepEqual(
      lines.map((line) => {
        const parsed = parseReportLine(line);
        return parsed.kind === 'report' ? parsed.report.event : parsed.kind;
      }),
      ['started', 'progress', 'checkpoint', 'finished', 'error'],
    );
  });

  test('anything that is not a report object is a log line', () => {
    for (const line of ['', 'epoch 1 loss 0.3', '[1, 2]', '{"loss": 0.3}', '{"event":"custom"}', '{broken']) {
      assert.equal(parseReportLine(line).kind, 'log', line);
    }
  });

  test('a known event with bad fields is malformed, with the field named', () => {
    const parsed = parseReportLine(
      '{"event":"progress","step":-1,"stepTime":"fast","samplesPerSecond":1,"rank":0}',
    );
    assert.equal(parsed.kind, 'malformed');
    if (parsed.kind !== 'malformed') return;
    assert.ok(parsed.issues.some((issue) => issue.startsWith('step:')));
    assert.ok(parsed.issues.some((issue) => issue.startsWith('stepTime:')));
  });
});

test('classifyExit follows the protocol exit codes', () => {
  assert.deepEqual([0, 75, 2, 76, 1, 137, null].map(classifyExit), [
    'finished',
    'checkpointed',
    'badConfiguration',
    'gangBroken',
    'crash',
    'crash',
    'crash',
  ]);
});
