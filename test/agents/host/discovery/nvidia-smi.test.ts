import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  NVIDIA_SMI_ARGS,
  NvidiaSmiDiscovery,
  NvidiaSmiParseError,
  parseNvidiaSmiCsv,
} from '../../../../agents/host/discovery/nvidia-smi.ts';
import { FIXTURES } from '../helpers.ts';

const fixture = (name: string) => readFileSync(join(FIXTURES, 'nvidia-smi', name), 'utf8');

describe('parseNvidiaSmiCsv', () => {
  test('reads an 8×A100 p4d box', () => {
    const gpus = parseNvidiaSmiCsv(fixture('p4d-8xa100.csv'));
    assert.equal(gpus.length, 8);
    assert.deepEqual(
      gpus.map((gpu) => gpu.index),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.deepEqual(gpus[0], {
      index: 0,
      uuid: 'GPU-6d1a4c1e-8f0b-2b8e-3c7a-2f9d5e4b1a10',
      name: 'NVIDIA A100-SXM4-40GB',
      memoryTotalMiB: 40960,
      utilization: 97,
      memoryUsedMiB: 31245,
    });
    assert.deepEqual(
      gpus.map((gpu) => gpu.utilization),
      [97, 96, 98, 97, 0, 0, 0, 0],
    );
  });

  test('turns [N/A] and [Not Supported] into null (MIG mode, old drivers)', () => {
    const gpus = parseNvidiaSmiCsv(fixture('p4de-mig-na.csv'));
    assert.equal(gpus[0]!.utilization, null);
    assert.equal(gpus[0]!.memoryUsedMiB, 19245);
    assert.equal(gpus[1]!.memoryUsedMiB, null);
    assert.equal(gpus[2]!.utilization, 42);
    assert.equal(gpus[3]!.memoryTotalMiB, null);
    assert.equal(gpus[3]!.name, 'NVIDIA A100-SXM4-80GB');
  });

  test('reads a single T4', () => {
    assert.deepEqual(
      parseNvidiaSmiCsv(fixture('g4dn-1xt4.csv')).map((gpu) => [gpu.index, gpu.name, gpu.memoryTotalMiB]),
      [[0, 'Tesla T4', 15360]],
    );
  });

  test('no GPUs: empty output is an empty list', () => {
    assert.deepEqual(parseNvidiaSmiCsv(''), []);
  });

  test('names the source, line and field of bad values', () => {
    assert.throws(
      () => parseNvidiaSmiCsv(fixture('bad-utilization.csv'), 'bad-utilization.csv'),
      (error: Error) =>
        error instanceof NvidiaSmiParseError &&
        /bad-utilization\.csv line 2: (uuid|utilization\.gpu)/.test(error.message),
    );
    assert.throws(
      () => parseNvidiaSmiCsv('0, GPU-8f3c1a5e-9b2d-4e7f-a6c8-3d1b5e9f2a74, Tesla T4, 15360, lots, 0\n', 'x'),
      /x line 1: utilization\.gpu: "lots" is not a number/,
    );
    assert.throws(
      () => parseNvidiaSmiCsv(fixture('missing-field.csv'), 'f'),
      /f line 1: expected 6 fields, got 5/,
    );
  });
});

describe('NvidiaSmiDiscovery', () => {
  test('runs nvidia-smi with the CSV query and parses its output', async () => {
    const calls: [string, string[]][] = [];
    const discovery = new NvidiaSmiDiscovery({
      run: async (command, args) => {
        calls.push([command, args]);
        return fixture('g4dn-1xt4.csv');
      },
    });
    const gpus = await discovery.sample();
    assert.equal(gpus.length, 1);
    assert.deepEqual(calls, [['nvidia-smi', NVIDIA_SMI_ARGS]]);
    assert.deepEqual(NVIDIA_SMI_ARGS, [
      '--query-gpu=index,uuid,name,memory.total,utilization.gpu,memory.used',
      '--format=csv,noheader,nounits',
    ]);
  });

  test('a missing nvidia-smi binary is an error, not an empty host', async () => {
    const discovery = new NvidiaSmiDiscovery({ command: '/nonexistent/nvidia-smi' });
    await assert.rejects(discovery.sample(), /ENOENT/);
  });
});
