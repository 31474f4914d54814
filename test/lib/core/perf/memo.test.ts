import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ThroughputQuery } from '../../../../lib/core/model/perf.ts';
import {
  ColocationMemo,
  colocationKey,
  ThroughputMemo,
  throughputKey,
} from '../../../../lib/core/perf/memo.ts';

const query = (overrides: Partial<ThroughputQuery> = {}): ThroughputQuery => ({
  model: 'resnet50',
  batchSize: 32,
  gpuType: 'A100',
  gpus: 4,
  shape: { level: 'machine', hosts: 1 },
  ...overrides,
});

describe('ThroughputMemo', () => {
  test('equal queries share an entry; queries that differ in any part (or their partner) do not', () => {
    const memo = new ThroughputMemo<string>();
    const computed: string[] = [];
    const get = (q: ThroughputQuery) =>
      memo.get(q, () => {
        computed.push(throughputKey(q));
        return throughputKey(q);
      });
    const variants = [
      query(),
      query({ model: 'bert' }),
      query({ batchSize: 64 }),
      query({ gpuType: 'V100' }),
      query({ gpus: 8 }),
      query({ shape: { level: 'rack', hosts: 1 } }),
      query({ shape: { level: 'machine', hosts: 2 } }),
      query({ partner: { model: 'bert', batchSize: 8 } }),
      query({ gpus: 2.5 }),
    ];
    for (const q of variants) assert.equal(get(q), throughputKey(q));
    // Asked again, as fresh objects: every answer is the first one, none is computed twice.
    for (const q of variants) assert.equal(get(structuredClone(q)), throughputKey(q));
    assert.equal(computed.length, variants.length);
  });
});

describe('ColocationMemo', () => {
  test('equal pairs share an entry; pairs that differ in any part (or in order) do not', () => {
    const memo = new ColocationMemo<string>();
    const computed: string[] = [];
    const get = (...q: Parameters<typeof colocationKey>) =>
      memo.get(...q, () => {
        computed.push(colocationKey(...q));
        return colocationKey(...q);
      });
    const a = { model: 'resnet50', batchSize: 32 };
    const b = { model: 'bert', batchSize: 16 };
    const variants: Parameters<typeof colocationKey>[] = [
      ['A100', 2, a, b],
      ['A100', 2, b, a],
      ['V100', 2, a, b],
      ['A100', 4, a, b],
      ['A100', 2, { ...a, batchSize: 64 }, b],
      ['A100', 2, a, { ...b, model: 'gpt2' }],
    ];
    for (const v of variants) assert.equal(get(...v), colocationKey(...v));
    for (const v of variants) assert.equal(get(...v), colocationKey(...v));
    assert.deepEqual(
      computed,
      variants.map((v) => colocationKey(...v)),
    );
  });
});
