import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkpointMounts,
  containerName,
  containerRunArgs,
  gpuDevices,
  setupScript,
} from '../../../../agents/host/workspace/container-command.ts';

describe('container runtime arguments', () => {
  test('a worker: its GPUs, host network, workspace mount, variables by name, GPUs renumbered', () => {
    const args = containerRunArgs({
      runtime: 'docker',
      image: 'pytorch/pytorch:2.4.0',
      name: containerName('job-1/g2/a0/r1'),
      hostDir: '/var/lib/tessera-agent/workspaces/job-1/work',
      gpuIndices: [3, 4],
      envNames: ['TESSERA_RANK', 'CUDA_VISIBLE_DEVICES', 'LR'],
      mounts: ['/ckpt/job-1'],
      command: ['python3', 'train.py', '--lr', '0.1'],
    });
    assert.deepEqual(args, [
      'run',
      '--rm',
      '--init',
      '--name',
      'tessera-job-1-g2-a0-r1',
      '--gpus',
      '"device=3,4"',
      '--network',
      'host',
      '--ipc',
      'host',
      '-v',
      '/var/lib/tessera-agent/workspaces/job-1/work:/workspace',
      '-w',
      '/workspace',
      '-v',
      '/ckpt/job-1:/ckpt/job-1',
      '-e',
      'LR',
      '-e',
      'TESSERA_RANK',
      '-e',
      'CUDA_VISIBLE_DEVICES=0,1',
      'pytorch/pytorch:2.4.0',
      'python3',
      'train.py',
      '--lr',
      '0.1',
    ]);
  });

  test('setup: no GPU, no renumbering; no working directory: the image’s own', () => {
    const args = containerRunArgs({
      runtime: 'podman',
      image: 'ubuntu',
      name: 'n',
      hostDir: null,
      gpuIndices: [],
      envNames: [],
      mounts: [],
      command: ['sh', '-c', setupScript(['apt-get update', 'make'])],
    });
    assert.deepEqual(args, [
      'run',
      '--rm',
      '--init',
      '--name',
      'n',
      '--network',
      'host',
      '--ipc',
      'host',
      'ubuntu',
      'sh',
      '-c',
      'set -e\napt-get update\nmake',
    ]);
  });

  test('helpers', () => {
    assert.equal(gpuDevices([7]), 'device=7');
    assert.equal(containerName('a/b c'), 'tessera-a-b-c');
    assert.deepEqual(checkpointMounts({ TESSERA_CHECKPOINT_URI: 'file:///data/ckpt%20x/job' }), [
      '/data/ckpt x/job',
    ]);
    assert.deepEqual(checkpointMounts({ TESSERA_CHECKPOINT_URI: 's3://b/jobs/j' }), []);
  });
});
