import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { criusAllocate } from '../../../../../lib/core/plugins/crius/allocate.ts';
import type { CellConfig, JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import {
  swapTypesByRemainingWork,
  type TypeSwapOptions,
} from '../../../../../lib/core/plugins/crius/swap-types.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { estimatedRemainingIterations } from '../../../../../lib/core/plugins/tessera/order.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

describe('type swap by remaining work', () => {
  // One 2-GPU machine of a fast type (A40, twice the speed) and one of a slow type (A10). A short job S runs on
  // the fast machine, a long job L on the slow one; nobody waits.
  const c = cluster([
    { gpuType: 'A40', hosts: 1, gpusPerHost: 2 },
    { gpuType: 'A10', hosts: 1, gpusPerHost: 2 },
  ]);
  const [fast, slow] = [c.hosts[0]!.id, c.hosts[1]!.id];
  const types = (lengthOfLong: number, swap: boolean) => {
    const jobs = [
      running({ id: 'S', gpus: 2, iterations: 1_000 }, on('A40', [fast, [0, 1]])),
      running({ id: 'L', gpus: 2, iterations: lengthOfLong }, on('A10', [slow, [0, 1]])),
    ];
    const ctx = roundContext({
      now: 0,
      cluster: c,
      jobs,
      state: initialSchedulerState(),
      policy: {} as Policy,
      perf: linearPerf({ A40: 2, A10: 1 }),
    });
    const stage = criusAllocate({
      ...DEFAULT_CRIUS_OPTIONS,
      name: 'test',
      countScaling: false,
      ...(swap ? { typeSwap: { remainingIterations: estimatedRemainingIterations, maxPairs: 100 } } : {}),
    });
    const demands = stage.allocate(jobs, ctx);
    return { S: demands.get('S')?.gpuType, L: demands.get('L')?.gpuType };
  };

  test('the job with the most work left gets the fast type when that saves more than the restarts', () => {
    assert.deepEqual(types(1_000_000, true), { S: 'A10', L: 'A40' });
  });

  test('without the swap (Crius), holders keep their types', () => {
    assert.deepEqual(types(1_000_000, false), { S: 'A40', L: 'A10' });
  });

  test('no swap when the gain does not pay for the restarts', () => {
    // L has barely more work than S: exchanging saves less than a restart.
    assert.deepEqual(types(1_010, true), { S: 'A40', L: 'A10' });
  });
});

/** The pass as first written (every pair visit reads the job's Cells and remaining work afresh): the reference. */
const referenceSwap = (
  vc: VirtualAllocation,
  cellsOf: (jobId: string) => JobCells | undefined,
  o: TypeSwapOptions,
): number => {
  const cellOn = (cells: JobCells, gpuType: string, gpus: number) =>
    cells.configs.find((c) => c.gpuType === gpuType && c.gpus === gpus);
  const secondsOn = (job: JobState, config: CellConfig): number => {
    if (!(config.rate > 0)) return Number.POSITIVE_INFINITY;
    const moves = job.allocation !== undefined && job.allocation.gpuType !== config.gpuType;
    return o.remainingIterations(job) / config.rate + (moves ? o.restartSeconds : 0);
  };
  const ids = [...vc.entries()].map(([id]) => id);
  if (new Set(ids.map((id) => vc.get(id)!.gpuType)).size < 2) return 0;
  const byCount = new Map<number, number[]>();
  for (let i = 0; i < ids.length; i++) {
    const gpus = vc.get(ids[i]!)!.gpus;
    byCount.set(gpus, [...(byCount.get(gpus) ?? []), i]);
  }
  let [pairs, visited, swaps] = [0, 0, 0];
  for (;;) {
    let best: { a: string; b: string; a2: CellConfig; b2: CellConfig; gain: number } | undefined;
    for (const group of byCount.values()) {
      for (let gi = 0; gi < group.length && pairs < o.maxPairs && visited < o.maxPairs * 64; gi++) {
        for (let gk = gi + 1; gk < group.length && pairs < o.maxPairs && visited < o.maxPairs * 64; gk++) {
          const [i, k] = [group[gi]!, group[gk]!];
          visited++;
          const [a, b] = [vc.get(ids[i]!)!, vc.get(ids[k]!)!];
          if (a.gpuType === b.gpuType) continue;
          pairs++;
          const [ca, cb] = [cellsOf(ids[i]!), cellsOf(ids[k]!)];
          if (!ca || !cb || ca.job.spec.elastic || cb.job.spec.elastic) continue;
          const [a2, b2] = [cellOn(ca, b.gpuType, b.gpus), cellOn(cb, a.gpuType, a.gpus)];
          if (!a2 || !b2) continue;
          const [sa, sb, sa2, sb2] = [
            secondsOn(ca.job, a),
            secondsOn(cb.job, b),
            secondsOn(ca.job, a2),
            secondsOn(cb.job, b2),
          ];
          const gain = sa + sb - (sa2 + sb2);
          if (Math.max(sa2, sb2) > Math.max(sa, sb) || !(gain > o.restartSeconds)) continue;
          if (!best || gain > best.gain) best = { a: ids[i]!, b: ids[k]!, a2, b2, gain };
        }
      }
    }
    if (!best) return swaps;
    vc.release(best.a);
    vc.release(best.b);
    vc.assign(best.a, best.a2);
    vc.assign(best.b, best.b2);
    swaps++;
  }
};

describe('type swap: the precomputed pass', () => {
  const TYPES = ['A', 'B', 'C'];
  const config = (gpuType: string, gpus: number, rate: number): CellConfig => ({
    gpuType,
    gpus,
    cell: { gpuType, gpus, stageGpus: [gpus] },
    key: `${gpuType}|${gpus}|1`,
    rate,
    value: rate,
  });
  const jobArb = fc.record({
    gpus: fc.constantFrom(1, 2, 4),
    type: fc.constantFrom(...TYPES),
    holding: fc.boolean(),
    // Mostly swappable jobs, so that swaps happen; some elastic or without Cells for the early exits.
    elastic: fc.constantFrom(false, false, false, true),
    noCells: fc.constantFrom(false, false, false, true),
    iterations: fc.integer({ min: 1, max: 1_000_000 }),
    progress: fc.integer({ min: 0, max: 1_000_000 }),
    rates: fc.array(fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: undefined }), {
      minLength: 3,
      maxLength: 3,
    }),
  });

  test('makes the same swaps as the reference on random allocations, with and without a pair budget', () => {
    let swapped = 0;
    fc.assert(
      fc.property(fc.array(jobArb, { maxLength: 24 }), fc.integer({ min: 1, max: 80 }), (drawn, maxPairs) => {
        const build = () => {
          const cells = new Map<string, JobCells>();
          const vc = new VirtualAllocation(new Map(TYPES.map((t) => [t, 1_000])));
          drawn.forEach((d, n) => {
            const id = `j${n}`;
            const s = {
              id,
              gpus: d.gpus,
              iterations: d.iterations,
              ...(d.elastic ? { elastic: { minGpus: 1, maxP: 4 } } : {}),
            };
            const job = d.holding
              ? running(s as never, on(d.type, ['h', [0]]), { progress: d.progress })
              : queued(s as never);
            const configs = TYPES.flatMap((t, i) =>
              d.rates[i] === undefined ? [] : [config(t, d.gpus, d.rates[i]!)],
            );
            const held = configs.find((c) => c.gpuType === d.type) ?? config(d.type, d.gpus, 0);
            if (!d.noCells) cells.set(id, { job, configs, reference: 1 });
            vc.assign(id, held);
          });
          return { vc, cellsOf: (id: string) => cells.get(id) };
        };
        const o = { remainingIterations: estimatedRemainingIterations, restartSeconds: 30, maxPairs };
        const [fast, slow] = [build(), build()];
        const swaps = swapTypesByRemainingWork(fast.vc, fast.cellsOf, o);
        assert.equal(swaps, referenceSwap(slow.vc, slow.cellsOf, o));
        if (swaps > 0) swapped++;
        assert.deepEqual([...fast.vc.entries()], [...slow.vc.entries()]);
      }),
      { numRuns: 300, seed: 11 },
    );
    // The draws must exercise swapping, not only the early exits.
    assert.ok(swapped > 20, `only ${swapped} runs swapped`);
  });
});
