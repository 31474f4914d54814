import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findGpuType, GPU_TYPES, getGpuType, resolveGpuTypeId } from '../../../../lib/core/catalog/gpus.ts';
import {
  getInstanceOffering,
  INSTANCE_OFFERINGS,
  instanceOfferingsFor,
  PRICE_DATE,
  pricePerGpuHour,
} from '../../../../lib/core/catalog/instances.ts';

describe('GPU catalog', () => {
  test('resolves ids and aliases case-insensitively, ignoring separators', () => {
    assert.equal(resolveGpuTypeId('v100'), 'V100-16GB');
    assert.equal(resolveGpuTypeId('V100-16GB'), 'V100-16GB');
    assert.equal(resolveGpuTypeId('v100_32gb'), 'V100-32GB');
    assert.equal(resolveGpuTypeId('Tesla V100'), 'V100-16GB');
    assert.equal(resolveGpuTypeId('a100'), 'A100-40GB');
    assert.equal(resolveGpuTypeId('A100 80GB'), 'A100-80GB');
    assert.equal(resolveGpuTypeId('a10g'), 'A10G');
    assert.equal(resolveGpuTypeId('A10'), 'A10');
    assert.equal(resolveGpuTypeId('h100'), 'H100');
    assert.equal(resolveGpuTypeId('l40s'), 'L40S');
  });

  test('an unknown type throws a RangeError that lists the known ids', () => {
    assert.equal(findGpuType('TPUv4'), undefined);
    assert.throws(
      () => getGpuType('TPUv4'),
      (error: unknown) =>
        error instanceof RangeError &&
        error.message.includes('"TPUv4"') &&
        GPU_TYPES.every((g) => error.message.includes(g.id)),
    );
  });

  test("covers the EC2 families and the papers' GPUs with sane numbers", () => {
    const ids = GPU_TYPES.map((g) => g.id);
    for (const id of [
      'H100',
      'A100-40GB',
      'A100-80GB',
      'V100-16GB',
      'V100-32GB',
      'A10G',
      'L4',
      'L40S',
      'T4',
    ]) {
      assert.ok(ids.includes(id), id);
    }
    for (const id of ['K80', 'P100', 'A40', 'A10']) assert.ok(ids.includes(id), id);
    for (const g of GPU_TYPES) {
      for (const v of [g.memoryGiB, g.peakTflops, g.intraNodeGBps, g.intraNodeLatencyUs, g.hostNetworkGbps]) {
        assert.ok(Number.isFinite(v) && v > 0, `${g.id}: ${v}`);
      }
    }
    // Tensor-core generations are ordered as NVIDIA's datasheets say.
    const peak = (id: string) => getGpuType(id).peakTflops;
    assert.ok(peak('H100') > peak('A100') && peak('A100') > peak('V100') && peak('V100') > peak('P100'));
    assert.ok(getGpuType('A100-80GB').memoryGiB > getGpuType('A100-40GB').memoryGiB);
  });
});

describe('EC2 offerings', () => {
  test('looks instance types up and names the known ones when unknown', () => {
    const p4d = getInstanceOffering('P4D.24xlarge');
    assert.deepEqual([p4d.gpuType, p4d.gpus, p4d.networkGbps], ['A100-40GB', 8, 400]);
    assert.throws(() => getInstanceOffering('p9.mega'), /unknown EC2 instance type "p9\.mega".*p5\.48xlarge/);
  });

  test('every offering names a catalog GPU, carries the price date and a positive price', () => {
    for (const o of INSTANCE_OFFERINGS) {
      assert.equal(getGpuType(o.gpuType).id, o.gpuType);
      assert.equal(o.priceDate, PRICE_DATE);
      assert.ok(o.onDemandPerHour > 0 && o.gpus >= 1 && o.networkGbps > 0, o.instanceType);
    }
  });

  test('offerings of a type come fewest GPUs first; the papers-only GPUs have none', () => {
    const a10g = instanceOfferingsFor('a10g');
    assert.equal(a10g[0]?.instanceType, 'g5.xlarge');
    assert.equal(a10g.at(-1)?.instanceType, 'g5.48xlarge');
    assert.ok(a10g.every((o, i) => i === 0 || (a10g[i - 1]?.gpus ?? 0) <= o.gpus));
    assert.deepEqual(instanceOfferingsFor('A40'), []);
    assert.equal(pricePerGpuHour(getInstanceOffering('p3.16xlarge')), 24.48 / 8);
  });
});
