import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NodeContent } from '../../../../../lib/core/plugins/tesserae/node-pair-cost.ts';
import { settledNodes } from '../../../../../lib/core/plugins/tesserae/settled-nodes.ts';

/** For each job number, the nodes holding it (in node order), as the relabelling lists them. */
const nodesOf = (content: readonly NodeContent[], jobs: number): (number[] | undefined)[] => {
  const nodes: (number[] | undefined)[] = new Array(jobs);
  content.forEach((node, p) => {
    for (const gpu of node)
      for (const j of gpu) if (!nodes[j]?.includes(p)) nodes[j] = [...(nodes[j] ?? []), p];
  });
  return nodes;
};

const settled = (before: NodeContent[], after: NodeContent[], fresh: number[] = []): number[] => {
  const freshNodes = new Uint8Array(before.length);
  for (const p of fresh) freshNodes[p] = 1;
  const flags = settledNodes(before, after, nodesOf(before, 10), nodesOf(after, 10), freshNodes);
  return [...flags].flatMap((f, p) => (f ? [p] : []));
};

// Nodes of two GPUs; job numbers 0–9.
describe('settled nodes: kept out of the node-level assignment', () => {
  test('a node whose GPUs hold the same jobs in both plans, alone, is settled; a changed one is not', () => {
    const before = [
      [[0], [1, 2]],
      [[3], []],
    ];
    const after = [
      [[0], [2, 1]],
      [[4], []],
    ];
    // Job order on a GPU does not matter; node 1 changed (job 4 replaced job 3).
    assert.deepEqual(settled(before, after), [0]);
  });

  test('a job that spans two nodes (in either plan) settles neither', () => {
    const spread = [
      [[0], [0]],
      [[0], [0]],
    ];
    assert.deepEqual(settled(spread, spread), []);
    // Job 1 sits on node 0 only now, but was on node 1 too: node 0 could still swap with node 1.
    assert.deepEqual(
      settled(
        [
          [[1], [2]],
          [[1], []],
        ],
        [
          [[1], [2]],
          [[], []],
        ],
      ),
      [],
    );
  });

  test('a node carrying GPUs of a job new to the class is not settled', () => {
    const content = [
      [[0], []],
      [[1], []],
    ];
    assert.deepEqual(settled(content, content, [1]), [0]);
  });

  test('an empty node and a GPU listing a job twice are never settled', () => {
    assert.deepEqual(settled([[[], []]], [[[], []]]), []);
    assert.deepEqual(settled([[[0, 0], []]], [[[0, 0], []]]), []);
  });

  test('a job moved between GPUs of the node unsettles it', () => {
    assert.deepEqual(settled([[[0], []]], [[[], [0]]]), []);
  });
});
