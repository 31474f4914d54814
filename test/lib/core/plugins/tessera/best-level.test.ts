import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bestLevel } from '../../../../../lib/core/plugins/tessera/best-level.ts';
import { cluster } from '../../../../support/fixtures.ts';

describe('the best consolidation the cluster offers a count of GPUs of a type', () => {
  // V100: 8-GPU machines, two per rack; T4: 2-GPU machines, four per rack.
  const c = cluster([
    { gpuType: 'V100', hosts: 4, gpusPerHost: 8, hostsPerRack: 2 },
    { gpuType: 'T4', hosts: 8, gpusPerHost: 2, hostsPerRack: 4 },
  ]);
  test('one machine when a host of the type holds them', () => {
    assert.equal(bestLevel(c, 'V100', 8), 'machine');
    assert.equal(bestLevel(c, 'T4', 2), 'machine');
  });
  test("one rack when a rack's hosts of the type hold them", () => {
    assert.equal(bestLevel(c, 'V100', 16), 'rack');
    assert.equal(bestLevel(c, 'T4', 8), 'rack');
  });
  test('the network beyond a rack', () => {
    assert.equal(bestLevel(c, 'V100', 32), 'network');
    assert.equal(bestLevel(c, 'T4', 9), 'network');
  });
});
