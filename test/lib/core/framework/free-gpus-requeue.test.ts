import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FreeGpus } from '../../../../lib/core/framework/free-gpus.ts';
import { RoundMemo } from '../../../../lib/core/framework/round-memo.ts';
import type { Allocation } from '../../../../lib/core/model/plan.ts';
import type { Level } from '../../../../lib/core/model/topology.ts';
import { cluster, on } from '../../../support/fixtures.ts';

const c = cluster([
  { gpuType: 'A100', hosts: 6, gpusPerHost: 8, hostsPerRack: 2 },
  { gpuType: 'T4', hosts: 5, gpusPerHost: 4, hostsPerRack: 3 },
]);
const TYPES = ['A100', 'T4'];
const LEVELS: Level[] = ['machine', 'rack', 'network'];

/** Every answer placement can read from `free`: counts and each find and first fit. */
const answers = (free: FreeGpus) =>
  TYPES.flatMap((t) => [
    free.freeOf(t),
    ...Array.from({ length: 33 }, (_, n) => [
      ...LEVELS.map((level) => free.find(t, n, level)),
      free.firstFit(t, n),
    ]),
  ]);

const reserveStep = fc.record({
  type: fc.constantFrom(...TYPES),
  count: fc.integer({ min: 1, max: 24 }),
  level: fc.constantFrom(...LEVELS),
  release: fc.boolean(),
  pick: fc.nat(),
});

/** A fresh instance after `steps`' reservations (their releases ignored), with what it holds. */
const reservedAfter = (
  steps: readonly { type: string; count: number; level: Level }[],
  memo: RoundMemo,
): { free: FreeGpus; held: Allocation[] } => {
  const free = new FreeGpus(c, memo);
  const held: Allocation[] = [];
  for (const s of steps) {
    const found = free.find(s.type, s.count, s.level);
    if (!found) continue;
    const allocation = { gpuType: s.type, slices: found.slices };
    free.reserve(allocation);
    held.push(allocation);
  }
  return { free, held };
};

/** A history of reservations, which allocation to ask about, the count and the level asked for. */
const releaseQuestion = [
  fc.array(reserveStep, { minLength: 1, maxLength: 30 }),
  fc.nat(),
  fc.integer({ min: 1, max: 40 }),
  fc.constantFrom(...LEVELS),
] as const;

describe('FreeGpus.requeue (the release and reservation of GPUs held, in one step)', () => {
  test('leaves every later find, first fit and count as a release followed by a reservation does', () => {
    const memo = new RoundMemo();
    fc.assert(
      fc.property(fc.array(reserveStep, { minLength: 1, maxLength: 30 }), fc.nat(), (steps, which) => {
        // The same history on two instances, then one requeues an allocation it holds and the other releases and
        // reserves it again.
        const a = new FreeGpus(c, memo);
        const b = new FreeGpus(c, memo);
        const held: Allocation[] = [];
        for (const s of steps) {
          if (s.release && held.length > 0) {
            const [gone] = held.splice(s.pick % held.length, 1);
            a.release(gone!);
            b.release(gone!);
            continue;
          }
          const found = a.find(s.type, s.count, s.level);
          if (!found) continue;
          const allocation = { gpuType: s.type, slices: found.slices };
          a.reserve(allocation);
          b.reserve(allocation);
          held.push(allocation);
        }
        if (held.length === 0) return;
        const chosen = held[which % held.length]!;
        assert.equal(a.requeue(chosen), true);
        b.release(chosen);
        b.reserve(chosen);
        assert.deepEqual(answers(a), answers(b));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  test('mayFindAfterRelease is false only when a release then a find would find nothing', () => {
    const memo = new RoundMemo();
    let refused = 0;
    fc.assert(
      fc.property(...releaseQuestion, (steps, which, count, level) => {
        const { free: a, held } = reservedAfter(steps, memo);
        if (held.length === 0) return;
        const chosen = held[which % held.length]!;
        if (a.mayFindAfterRelease(chosen, count, level)) return;
        refused++;
        a.release(chosen);
        assert.equal(a.find(chosen.gpuType, count, level), undefined);
      }),
      { numRuns: 300, seed: 5 },
    );
    // The check must also say no, or it would prove nothing.
    assert.ok(refused > 20, `refused ${refused}`);
  });

  test('mayFindAfterRelease answers the same however many calls came before on the same free GPUs', () => {
    const memo = new RoundMemo();
    fc.assert(
      fc.property(...releaseQuestion, (steps, which, count, level) => {
        const reserved = () => reservedAfter(steps, memo);
        const used = reserved();
        if (used.held.length === 0) return;
        // Every other question first, on the same object (its per-group counts must be back to zero after each).
        for (const other of used.held) for (const l of LEVELS) used.free.mayFindAfterRelease(other, count, l);
        const chosen = used.held[which % used.held.length]!;
        const fresh = reserved();
        assert.equal(
          used.free.mayFindAfterRelease(chosen, count, level),
          fresh.free.mayFindAfterRelease(fresh.held[which % fresh.held.length]!, count, level),
        );
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  test('refuses, changing nothing, an allocation with a free GPU, an unknown host or a host named twice', () => {
    const free = new FreeGpus(c, new RoundMemo());
    const before = answers(free);
    assert.equal(free.requeue(on('A100', ['g0-h0', [0]])), false);
    free.reserve(on('A100', ['g0-h0', [0, 1]]));
    const reserved = answers(free);
    assert.equal(free.requeue(on('A100', ['g0-h0', [1, 2]])), false);
    assert.equal(free.requeue(on('A100', ['nowhere', [0]])), false);
    assert.equal(free.requeue(on('A100', ['g0-h0', [0]], ['g0-h0', [1]])), false);
    assert.equal(free.requeue(on('A100', ['g0-h0', [0, 8]])), false);
    assert.deepEqual(answers(free), reserved);
    assert.notDeepEqual(reserved, before);
  });
});
