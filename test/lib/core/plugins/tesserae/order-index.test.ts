import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { newJobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { orderIndex } from '../../../../../lib/core/plugins/tesserae/order-index.ts';
import { cluster, linearPerf, spec } from '../../../../support/fixtures.ts';

const context = () =>
  roundContext({
    now: 0,
    cluster: cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 4 }]),
    jobs: [],
    state: initialSchedulerState(),
    policy: {} as Policy,
    perf: linearPerf(),
  });

describe('each job’s position in a round’s order', () => {
  const [a, b, c] = ['A', 'B', 'C'].map((id) => newJobState(spec({ id }))) as [
    ReturnType<typeof newJobState>,
    ReturnType<typeof newJobState>,
    ReturnType<typeof newJobState>,
  ];

  test('gives every job its position in the order, and nothing for jobs not in it', () => {
    const index = orderIndex([b, c, a], context());
    assert.deepEqual(
      [...index],
      [
        ['B', 0],
        ['C', 1],
        ['A', 2],
      ],
    );
    assert.equal(index.get('D'), undefined);
  });

  test('is built once per order and round: the same order gives the same index, another order its own', () => {
    const ctx = context();
    const ordered = [a, b];
    const first = orderIndex(ordered, ctx);
    assert.equal(orderIndex(ordered, ctx), first);
    const other = orderIndex([b, a], ctx);
    assert.notEqual(other, first);
    assert.equal(other.get('A'), 1);
    assert.notEqual(orderIndex(ordered, context()), first);
  });
});
