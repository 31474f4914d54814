import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusterPresets, loadCluster, parseCluster } from '../../../lib/clusters/load.ts';
import { gpusByType, totalGpus } from '../../../lib/core/model/cluster.ts';

describe('cluster presets and files', () => {
  test('the presets of issue 2 exist and have the papers’ sizes', () => {
    const sizes: Record<string, number> = {
      'crius-1280': 1280,
      'crius-testbed-64': 64,
      'dally-2r': 128,
      'dally-4r': 256,
      'dally-8r': 512,
      'dally-16r': 1024,
      'tesserae-80': 80,
      'tesserae-32': 32,
      'easyscale-64': 64,
      'pollux-64': 64,
    };
    for (const [name, gpus] of Object.entries(sizes)) {
      assert.ok(clusterPresets().includes(name), name);
      assert.equal(totalGpus(loadCluster(name)), gpus, name);
    }
    assert.ok(clusterPresets().includes('aws-mixed'));
  });

  test('crius-1280 has 320 GPUs of each of its four types, and types resolve to catalog ids', () => {
    const byType = gpusByType(loadCluster('crius-1280'));
    assert.equal(byType.size, 4);
    for (const count of byType.values()) assert.equal(count, 320);
  });

  test('dally presets put 8 machines of 8 GPUs in each rack', () => {
    const c = loadCluster('dally-4r');
    const racks = new Map<string, number>();
    for (const h of c.hosts) racks.set(h.rack, (racks.get(h.rack) ?? 0) + 1);
    assert.equal(racks.size, 4);
    for (const n of racks.values()) assert.equal(n, 8);
    assert.ok(c.hosts.every((h) => h.gpuCount === 8));
  });

  test('errors name the file and the field', () => {
    assert.throws(() => parseCluster('{', 'c.json'), /c\.json: not valid JSON/);
    assert.throws(
      () =>
        parseCluster(
          JSON.stringify({ name: 'x', groups: [{ gpuType: 'V100', hosts: -1, gpusPerHost: 4 }] }),
          'c.json',
        ),
      /c\.json: invalid cluster:\n {2}groups\.0\.hosts: /,
    );
    assert.throws(
      () => parseCluster(JSON.stringify({ name: 'x' }), 'c.json'),
      /at least one entry in "groups" or "hosts"/,
    );
    assert.throws(
      () =>
        parseCluster(
          JSON.stringify({ name: 'x', groups: [{ gpuType: 'V100', hosts: 2, gpusPerHost: 0 }] }),
          'c.json',
        ),
      /c\.json: cluster x: has no GPUs/,
    );
    assert.throws(
      () =>
        parseCluster(
          JSON.stringify({ name: 'x', groups: [{ gpuType: 'Z9000', hosts: 1, gpusPerHost: 1 }] }),
          'c.json',
        ),
      /c\.json: .*Z9000/,
    );
    assert.throws(
      () => loadCluster('no-such-cluster'),
      /unknown cluster "no-such-cluster": not a preset \(aws-mixed, /,
    );
  });

  test('explicit hosts keep their ids and topology', () => {
    const c = parseCluster(
      JSON.stringify({
        name: 'tiny',
        hosts: [
          { id: 'a', gpuType: 'v100', gpuCount: 4, rack: 'r1' },
          { id: 'b', gpuType: 'V100', gpuCount: 4, rack: 'r1' },
        ],
      }),
      'tiny.json',
    );
    assert.deepEqual(
      c.hosts.map((h) => [h.id, h.gpuType, h.rack]),
      [
        ['a', 'V100-16GB', 'r1'],
        ['b', 'V100-16GB', 'r1'],
      ],
    );
    assert.throws(
      () =>
        parseCluster(
          JSON.stringify({
            name: 'dup',
            hosts: [
              { id: 'a', gpuType: 'V100', gpuCount: 1 },
              { id: 'a', gpuType: 'V100', gpuCount: 1 },
            ],
          }),
          'dup.json',
        ),
      /duplicate host id "a"/,
    );
  });
});
