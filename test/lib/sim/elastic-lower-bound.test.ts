import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shapeOf } from '../../../lib/core/framework/free-gpus.ts';
import type { Cluster, HostSlice } from '../../../lib/core/model/cluster.ts';
import type { GpuTypeId } from '../../../lib/core/model/gpu.ts';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import type { Allocation } from '../../../lib/core/model/plan.ts';
import { estMapping } from '../../../lib/core/plugins/easyscale/est-mapping.ts';
import { estCapability } from '../../../lib/core/plugins/easyscale/job-model.ts';
import { elasticThroughput } from '../../../lib/core/plugins/easyscale/rate.ts';
import { loadDefaultPerfModel } from '../../../lib/data/perf.ts';
import { bestElasticRate, stepComputeSeconds } from '../../../lib/sim/elastic-lower-bound.ts';
import { cluster, spec } from '../../support/fixtures.ts';

const perf = loadDefaultPerfModel({ onWarning: () => {} });

/**
 * The executor's rate of an elastic job on every set of the cluster's GPUs (each worker ≥ 1 EST, the min–max EST
 * mapping with no per-GPU limit), by brute force over subsets of GPUs.
 */
const everyAllocationRate = (job: JobSpec, c: Cluster): number[] => {
  const gpus = c.hosts.flatMap((h) => Array.from({ length: h.gpuCount }, (_, g) => [h, g] as const));
  const hostOf = (id: string) => c.hosts.find((h) => h.id === id);
  const capability = new Map<GpuTypeId, number>();
  for (const h of c.hosts) capability.set(h.gpuType, estCapability(perf, job, job.elastic!, h.gpuType));
  const rates: number[] = [];
  for (let mask = 1; mask < 1 << gpus.length; mask++) {
    const chosen = gpus.filter((_, i) => mask & (1 << i));
    if (chosen.length > job.elastic!.maxP) continue;
    const types = new Set(chosen.map(([h]) => h.gpuType));
    if (!job.elastic!.heterogeneous && types.size > 1) continue;
    if ([...types].some((t) => !(capability.get(t)! > 0))) continue;
    const slices: HostSlice[] = [];
    for (const [h, g] of chosen) {
      const s = slices.find((x) => x.hostId === h.id);
      if (s) (s.gpus as number[]).push(g);
      else slices.push({ hostId: h.id, gpus: [g] });
    }
    const draft: Allocation = { gpuType: chosen[0]![0].gpuType, slices };
    const workerTypes = chosen.map(([h]) => h.gpuType);
    const unlimited = Object.fromEntries([...types].map((t) => [t, job.elastic!.maxP]));
    const allocation = { ...draft, ests: estMapping(job.elastic!.maxP, workerTypes, capability, unlimited) };
    const shape = shapeOf(allocation, hostOf);
    const rate = elasticThroughput(perf, job, allocation, hostOf, { level: shape.level, hosts: shape.hosts });
    rates.push(rate.iterationsPerSecond);
  }
  return rates;
};

describe("an elastic job's best rate alone (the JCT lower bound of elastic jobs)", () => {
  test('is the executor rate of the best allocation, all-reduce included (vgg19, 8 ESTs, two 4-GPU hosts)', () => {
    const c = cluster([{ gpuType: 'V100', hosts: 2, gpusPerHost: 4 }]);
    const job = spec({
      model: 'vgg19',
      batchSize: 8 * 32,
      gpus: 8,
      elastic: { maxP: 8, minGpus: 0, heterogeneous: false },
    });
    const best = Math.max(...everyAllocationRate(job, c));
    // Without the all-reduce the bound would be 8 ESTs on 8 GPUs: one mini-batch time per step.
    const computeOnly = estCapability(perf, job, job.elastic!, 'V100');
    assert.ok(
      best < 0.9 * computeOnly,
      'vgg19 communicates: the fastest allocation is well below compute alone',
    );
    assert.ok(Math.abs(bestElasticRate(job, c, perf) - best) <= 1e-9 * best);
  });

  test('no allocation beats it on mixed types (bert-base, heterogeneous, 6 ESTs)', () => {
    const c = cluster([
      { gpuType: 'V100', hosts: 2, gpusPerHost: 2 },
      { gpuType: 'T4', hosts: 1, gpusPerHost: 4 },
    ]);
    const job = spec({
      model: 'bert-base',
      batchSize: 6 * 8,
      gpus: 6,
      elastic: { maxP: 6, minGpus: 0, heterogeneous: true },
    });
    const rates = everyAllocationRate(job, c);
    const bound = bestElasticRate(job, c, perf);
    assert.ok(rates.every((r) => r <= bound * (1 + 1e-9)));
    assert.ok(Math.max(...rates) >= 0.99 * bound, 'and it is reached (types share no rack: network level)');
  });

  test('step compute time: the least k / C_t with room for maxP ESTs, one worker of each type at least', () => {
    // 5 ESTs on 2 workers of capability 1: 3 on one worker.
    assert.equal(stepComputeSeconds([{ capability: 1, gpus: 4 }], 2, 5), 3);
    // A fast (2/s) and a slow (1/s) worker, 3 ESTs: 2 on the fast one, 1 on the slow one, 1 s.
    assert.equal(
      stepComputeSeconds(
        [
          { capability: 2, gpus: 1 },
          { capability: 1, gpus: 1 },
        ],
        2,
        3,
      ),
      1,
    );
    // More workers than GPUs of the types: no plan.
    assert.equal(stepComputeSeconds([{ capability: 1, gpus: 2 }], 3, 4), Number.POSITIVE_INFINITY);
  });
});
