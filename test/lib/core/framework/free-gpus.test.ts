import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreeGpus, levelOf } from '../../../../lib/core/framework/free-gpus.ts';
import { cluster, on } from '../../../support/fixtures.ts';

const twoRacks = () => cluster([{ gpuType: 'A100', hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);

describe('FreeGpus', () => {
  test('counts capacity and free GPUs per type', () => {
    const free = new FreeGpus(
      cluster([
        { gpuType: 'A100', hosts: 2, gpusPerHost: 8 },
        { gpuType: 'T4', hosts: 3, gpusPerHost: 4 },
      ]),
    );
    assert.equal(free.capacityOf('A100'), 16);
    assert.equal(free.capacityOf('T4'), 12);
    assert.equal(free.freeOf('V100'), 0);
    assert.equal(free.largestHost('T4'), 4);
  });

  test('places a job that fits one machine on one machine, best fit first', () => {
    const free = new FreeGpus(twoRacks());
    free.reserve(on('A100', ['g0-h1', [0, 1, 2, 3, 4]]));
    const found = free.find('A100', 3)!;
    assert.equal(found.level, 'machine');
    // h1 has exactly 3 free: the tightest host that fits.
    assert.deepEqual(found.slices, [{ hostId: 'g0-h1', gpus: [5, 6, 7] }]);
  });

  test('spans hosts of one rack before going across racks', () => {
    const free = new FreeGpus(twoRacks());
    const found = free.find('A100', 12)!;
    assert.equal(found.level, 'rack');
    assert.equal(found.slices.length, 2);
    const hosts = found.slices.map((s) => s.hostId).sort();
    assert.deepEqual(hosts, ['g0-h0', 'g0-h1']);
    const across = free.find('A100', 20)!;
    assert.equal(across.level, 'network');
    assert.equal(
      across.slices.reduce((n, s) => n + s.gpus.length, 0),
      20,
    );
  });

  test('respects the worst acceptable level', () => {
    const free = new FreeGpus(twoRacks());
    assert.equal(free.find('A100', 12, 'machine'), undefined);
    assert.ok(free.find('A100', 12, 'rack'));
  });

  test('reserve refuses GPUs that are taken, release gives them back', () => {
    const free = new FreeGpus(twoRacks());
    const a = on('A100', ['g0-h0', [0, 1]]);
    free.reserve(a);
    assert.equal(free.freeOf('A100'), 30);
    assert.throws(() => free.reserve(on('A100', ['g0-h0', [1, 2]])), /not free/);
    assert.equal(free.canReserve(on('A100', ['g0-h9', [0]])), false);
    free.release(a);
    assert.equal(free.freeOf('A100'), 32);
    assert.equal(free.find('A100', 8)?.level, 'machine');
  });

  test('tryReserve reserves only when every GPU is free, and leaves everything as it was when not', () => {
    const free = new FreeGpus(twoRacks());
    assert.equal(free.tryReserve(on('A100', ['g0-h0', [0, 1]], ['g0-h1', [3]])), true);
    assert.equal(free.freeOf('A100'), 29);
    assert.equal(free.isFree('g0-h1', 3), false);
    // One taken GPU (g0-h0 #1) or one unknown host: nothing is reserved.
    assert.equal(free.tryReserve(on('A100', ['g0-h1', [0]], ['g0-h0', [1]])), false);
    assert.equal(free.tryReserve(on('A100', ['g0-h1', [0]], ['g0-h9', [0]])), false);
    assert.equal(free.freeOf('A100'), 29);
    assert.equal(free.isFree('g0-h1', 0), true);
    assert.equal(free.canReserve(on('A100', ['g0-h1', [0, 1, 2]])), true);
  });

  test('first fit takes GPUs in host order regardless of topology', () => {
    const free = new FreeGpus(twoRacks());
    free.reserve(on('A100', ['g0-h0', [0, 1, 2, 3, 4, 5]]));
    assert.deepEqual(free.firstFit('A100', 4), [
      { hostId: 'g0-h0', gpus: [6, 7] },
      { hostId: 'g0-h1', gpus: [0, 1] },
    ]);
  });

  test('lost and draining hosts offer nothing', () => {
    const c = twoRacks();
    const hosts = c.hosts.map((h, i) => (i === 0 ? { ...h, state: 'lost' as const } : h));
    const free = new FreeGpus({ ...c, hosts });
    assert.equal(free.capacityOf('A100'), 24);
  });

  test('levelOf names the smallest tier containing an allocation', () => {
    const c = twoRacks();
    const hostOf = (id: string) => c.hosts.find((h) => h.id === id);
    assert.equal(levelOf(on('A100', ['g0-h0', [0, 1]]), hostOf), 'machine');
    assert.equal(levelOf(on('A100', ['g0-h0', [0]], ['g0-h1', [0]]), hostOf), 'rack');
    assert.equal(levelOf(on('A100', ['g0-h0', [0]], ['g0-h2', [0]]), hostOf), 'network');
  });
});
