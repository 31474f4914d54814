import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimulatedGpuDiscovery } from '../../../../agents/host/discovery/simulated-gpus.ts';

test('simulated GPUs look like nvidia-smi output for a known type', async () => {
  const gpus = await new SimulatedGpuDiscovery({ count: 4, type: 'A100', hostId: 'h1' }).sample();
  assert.equal(gpus.length, 4);
  assert.deepEqual(
    gpus.map((gpu) => gpu.index),
    [0, 1, 2, 3],
  );
  assert.ok(gpus.every((gpu) => gpu.name === 'NVIDIA A100-SXM4-40GB' && gpu.memoryTotalMiB === 40960));
  assert.ok(
    gpus.every((gpu) => /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(gpu.uuid)),
  );
  assert.equal(new Set(gpus.map((gpu) => gpu.uuid)).size, 4);
});

test('UUIDs differ between hosts and are stable per host', async () => {
  const a = await new SimulatedGpuDiscovery({ count: 1, type: 'T4', hostId: 'a' }).sample();
  const again = await new SimulatedGpuDiscovery({ count: 1, type: 'T4', hostId: 'a' }).sample();
  const b = await new SimulatedGpuDiscovery({ count: 1, type: 'T4', hostId: 'b' }).sample();
  assert.equal(a[0]!.uuid, again[0]!.uuid);
  assert.notEqual(a[0]!.uuid, b[0]!.uuid);
});

test('utilisation comes from the callback; unknown types keep their name', async () => {
  const gpus = await new SimulatedGpuDiscovery({
    count: 2,
    type: 'MI300X',
    utilization: (index) => (index === 1 ? 100 : 0),
  }).sample();
  assert.deepEqual(
    gpus.map((gpu) => [gpu.name, gpu.memoryTotalMiB, gpu.utilization]),
    [
      ['MI300X', null, 0],
      ['MI300X', null, 100],
    ],
  );
  assert.throws(
    () => new SimulatedGpuDiscovery({ count: -1, type: 'T4' }),
    /count must be a non-negative integer/,
  );
});
