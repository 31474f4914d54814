import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PerfModel } from '../../../../../lib/core/model/perf.ts';
import { estMapping } from '../../../../../lib/core/plugins/easyscale/est-mapping.ts';
import { elasticThroughput, workerTypes } from '../../../../../lib/core/plugins/easyscale/rate.ts';
import { cluster, linearPerf, on, spec } from '../../../../support/fixtures.ts';

const c = cluster([
  { gpuType: 'V100', hosts: 1, gpusPerHost: 1 },
  { gpuType: 'P100', hosts: 2, gpusPerHost: 1 },
]);
const hostOf = (id: string) => c.hosts.find((h) => h.id === id);
const job = spec({ id: 'e', gpus: 4, batchSize: 32, elastic: { maxP: 4, minGpus: 0, heterogeneous: true } });
const gpus = on('P100', ['g0-h0', [0]], ['g1-h0', [0]], ['g1-h1', [0]]);
const shape = { level: 'network', hosts: 3 } as const;

describe('elastic throughput (the executor of an EST mapping)', () => {
  test('global steps per second = 1 / (f_overload + all-reduce): maxP / f_overload mini-batches per second', () => {
    const perf = linearPerf({ V100: 2, P100: 1 }); // C = 2 and 1 EST mini-batches per second, no communication
    assert.deepEqual(workerTypes(gpus, hostOf), ['V100', 'P100', 'P100']);
    const balanced = elasticThroughput(perf, job, { ...gpus, ests: [[0, 1], [2], [3]] }, hostOf, shape);
    assert.equal(balanced.computeSeconds, 1);
    assert.equal(balanced.iterationsPerSecond, 1);
    // Two ESTs on a P100 take 2 s: the whole step waits for it.
    const lopsided = elasticThroughput(perf, job, { ...gpus, ests: [[0], [1], [2, 3]] }, hostOf, shape);
    assert.equal(lopsided.iterationsPerSecond, 0.5);
  });

  test('the all-reduce is paid once per step, at the slowest type’s cost', () => {
    const withComm: PerfModel = {
      ...linearPerf({ V100: 2, P100: 1 }),
      throughput: (q) => {
        const base = linearPerf({ V100: 2, P100: 1 }).throughput(q);
        return { ...base, commSeconds: q.gpus > 1 ? (q.gpuType === 'P100' ? 0.5 : 0.25) : 0 };
      },
    };
    const r = elasticThroughput(withComm, job, { ...gpus, ests: [[0, 1], [2], [3]] }, hostOf, shape);
    assert.equal(r.commSeconds, 0.5);
    assert.equal(r.iterationsPerSecond, 1 / 1.5);
  });

  test('refuses a mapping that does not match the GPUs', () => {
    assert.throws(
      () => elasticThroughput(linearPerf(), job, { ...gpus, ests: [[0, 1, 2, 3]] }, hostOf, shape),
      /1 workers on 3 GPUs/,
    );
    assert.throws(() => elasticThroughput(linearPerf(), job, gpus, hostOf, shape), /no EST mapping/);
  });

  test('EST mapping: min–max balance, contiguous ranks, clear errors', () => {
    const capability = new Map([
      ['V100', 3],
      ['T4', 1],
    ]);
    assert.deepEqual(estMapping(5, ['T4', 'V100'], capability, { V100: 4, T4: 1 }), [[0], [1, 2, 3, 4]]);
    assert.deepEqual(estMapping(2, ['V100', 'V100'], capability, { V100: 1 }), [[0], [1]]);
    assert.throws(
      () => estMapping(2, ['V100', 'V100', 'V100'], capability, { V100: 1 }),
      /3 workers for 2 ESTs/,
    );
    assert.throws(() => estMapping(4, ['V100', 'T4'], capability, { V100: 2, T4: 1 }), /cannot hold 4 ESTs/);
    assert.throws(() => estMapping(2, ['K80'], capability, { K80: 2 }), /no capability for GPU type K80/);
  });
});
