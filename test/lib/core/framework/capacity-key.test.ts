import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { capacityKey, internedKey } from '../../../../lib/core/framework/capacity-key.ts';
import { roundContext } from '../../../../lib/core/framework/round.ts';
import { RoundMemo } from '../../../../lib/core/framework/round-memo.ts';
import type { Policy } from '../../../../lib/core/framework/stages.ts';
import type { Cluster } from '../../../../lib/core/model/cluster.ts';
import { initialSchedulerState } from '../../../../lib/core/model/state.ts';
import { cluster, linearPerf } from '../../../support/fixtures.ts';

describe('capacity key', () => {
  const c = cluster([
    { gpuType: 'A100-40GB', hosts: 2, gpusPerHost: 4 },
    { gpuType: 'T4', hosts: 1, gpusPerHost: 2 },
  ]);
  const ctx = (cl: Cluster, memo: RoundMemo) =>
    roundContext({
      now: 0,
      cluster: cl,
      jobs: [],
      state: initialSchedulerState(),
      policy: {} as Policy,
      perf: linearPerf(),
      memo,
    });

  test('names the cluster and each usable type with its GPUs and largest host, the same text every round', () => {
    const memo = new RoundMemo();
    const first = capacityKey(ctx(c, memo));
    assert.equal(first, 'test|A100-40GB:8:4,T4:2:2');
    assert.equal(capacityKey(ctx(c, memo)), first);
    assert.equal(capacityKey(ctx(c, new RoundMemo())), first);
  });

  test('changes when a host is lost', () => {
    const memo = new RoundMemo();
    const lost: Cluster = { ...c, hosts: c.hosts.map((h, i) => (i === 0 ? { ...h, state: 'lost' } : h)) };
    assert.equal(capacityKey(ctx(lost, memo)), 'test|A100-40GB:4:4,T4:2:2');
  });

  test('interning gives back the text it was given, first or again', () => {
    const context = ctx(c, new RoundMemo());
    assert.equal(internedKey(context, 'a|b'), 'a|b');
    assert.equal(internedKey(context, ['a', 'b'].join('|')), 'a|b');
    assert.equal(internedKey(context, 'c'), 'c');
  });
});
