import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  hierarchicalAllReduceSeconds,
  ringAllReduceSeconds,
  transferSeconds,
} from '../../../../lib/core/perf/collectives.ts';

const link = { bandwidth: 1e9, latency: 1e-5 };

describe('α-β collectives', () => {
  test('ring all-reduce: 2(n−1)/n · bytes/β + 2(n−1)·α per call', () => {
    // 8 ranks, 1 GB at 1 GB/s: 2·7/8 s of transfer + 14 steps of 10 µs.
    assert.equal(ringAllReduceSeconds(1e9, 8, link), 1.75 + 14e-5);
    // Latency is paid per bucket, bandwidth once.
    assert.equal(ringAllReduceSeconds(1e9, 8, link, 4), 1.75 + 4 * 14e-5);
    assert.equal(ringAllReduceSeconds(1e9, 1, link), 0);
    assert.equal(ringAllReduceSeconds(0, 8, link), 0);
  });

  test('hierarchical all-reduce adds the intra-host ring and the inter-host ring over the NIC', () => {
    const nic = { bandwidth: 1e8, latency: 1e-4 };
    const seconds = hierarchicalAllReduceSeconds({
      bytes: 1e8,
      ranksPerHost: 4,
      hosts: 2,
      intra: link,
      inter: nic,
      calls: 1,
    });
    assert.equal(seconds, ringAllReduceSeconds(1e8, 4, link) + ringAllReduceSeconds(1e8, 2, nic));
    // One host: no inter-host term.
    const oneHost = hierarchicalAllReduceSeconds({
      bytes: 1e8,
      ranksPerHost: 8,
      hosts: 1,
      intra: link,
      inter: nic,
      calls: 1,
    });
    assert.equal(oneHost, ringAllReduceSeconds(1e8, 8, link));
  });

  test('a transfer costs bytes/β + α, nothing for no bytes', () => {
    assert.equal(transferSeconds(1e9, link), 1 + 1e-5);
    assert.equal(transferSeconds(0, link), 0);
  });
});
