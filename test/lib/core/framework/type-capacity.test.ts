import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { capacityByType } from '../../../../lib/core/framework/type-capacity.ts';
import { cluster } from '../../../support/fixtures.ts';

describe('capacityByType', () => {
  test('per GPU type, in the order the hosts first name it: GPUs, hosts and the largest host', () => {
    const c = cluster([
      { gpuType: 'V100', hosts: 2, gpusPerHost: 4 },
      { gpuType: 'A100', hosts: 1, gpusPerHost: 8 },
      { gpuType: 'V100', hosts: 1, gpusPerHost: 8 },
    ]);
    assert.deepEqual(
      [...capacityByType(c.hosts)],
      [
        ['V100', { gpus: 16, hosts: 3, largestHost: 8 }],
        ['A100', { gpus: 8, hosts: 1, largestHost: 8 }],
      ],
    );
  });

  test('no hosts, no types', () => {
    assert.equal(capacityByType([]).size, 0);
  });
});
