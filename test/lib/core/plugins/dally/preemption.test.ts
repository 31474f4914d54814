import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  chooseVictims,
  DEFAULT_PREEMPTION,
  isEligibleVictim,
  preemptionPays,
  type VictimCandidate,
  validatePreemption,
} from '../../../../../lib/core/plugins/dally/preemption.ts';
import { cluster } from '../../../../support/fixtures.ts';

// 2 racks × 2 hosts × 8 GPUs: g0-h0, g0-h1 in rack r0; g0-h2, g0-h3 in rack r1.
const HOSTS = cluster([{ gpuType: 'A100-40GB', hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]).hosts;

const victim = (jobId: string, priority: number, ...slices: [string, number][]): VictimCandidate => ({
  jobId,
  priority,
  slices: slices.map(([hostId, n]) => ({ hostId, gpus: Array.from({ length: n }, (_, i) => i) })),
});

/** Free GPUs per host: whatever the candidates do not hold (the cluster is otherwise full unless given). */
const freeOf =
  (free: Record<string, number> = {}) =>
  (hostId: string): number =>
    free[hostId] ?? 0;

describe('chooseVictims (network-sensitive)', () => {
  test('frees one machine with the highest-P jobs on it and spares the rest', () => {
    const candidates = [
      victim('a', 1.0, ['g0-h0', 4]),
      victim('b', 1.3, ['g0-h0', 4]),
      victim('c', 1.2, ['g0-h1', 8]),
    ];
    // 4 GPUs on one machine: h0 with b (P 1.3, highest) alone suffices; c would free 8 but has lower P than b.
    const choice = chooseVictims(4, 'machine', candidates, HOSTS, freeOf());
    assert.deepEqual(
      choice?.victims.map((v) => v.jobId),
      ['b'],
    );
    assert.equal(choice?.level, 'machine');
  });

  test('prefers the domain needing the fewest victims; inside it, the highest P go first', () => {
    const candidates = [
      victim('a', 1.5, ['g0-h0', 2]),
      victim('b', 1.4, ['g0-h0', 2]),
      victim('c', 1.3, ['g0-h0', 4]),
      victim('d', 1.2, ['g0-h1', 8]),
    ];
    // 8 GPUs on one machine: h0 needs a + b + c (3 victims), h1 needs d alone.
    assert.deepEqual(
      chooseVictims(8, 'machine', candidates, HOSTS, freeOf())?.victims.map((v) => v.jobId),
      ['d'],
    );
    // With 4 GPUs free on h0 and only h0 to choose: inside a domain victims go highest P first, so a and b
    // (P 1.5, 1.4) give way rather than c (P 1.3), the more slowed job, alone.
    const withFree = chooseVictims(8, 'machine', candidates.slice(0, 3), HOSTS, freeOf({ 'g0-h0': 4 }));
    assert.deepEqual(withFree?.victims.map((v) => v.jobId).sort(), ['a', 'b']);
  });

  test('drops greedy picks that later picks make unnecessary', () => {
    // Need 8 on h0: greedy takes x (P 2, 2 GPUs), then y (P 1.9, 8 GPUs on h0) → x is unnecessary.
    const candidates = [victim('x', 2, ['g0-h0', 2]), victim('y', 1.9, ['g0-h0', 6], ['g0-h1', 2])];
    const choice = chooseVictims(8, 'machine', candidates, HOSTS, freeOf({ 'g0-h0': 2 }));
    assert.deepEqual(
      choice?.victims.map((v) => v.jobId),
      ['y'],
    );
  });

  test('goes to rack level only when no machine can be freed, and never past maxLevel', () => {
    const candidates = [victim('a', 1.5, ['g0-h0', 8]), victim('b', 1.4, ['g0-h1', 8])];
    const rack = chooseVictims(16, 'rack', candidates, HOSTS, freeOf());
    assert.equal(rack?.level, 'rack');
    assert.deepEqual(rack?.victims.map((v) => v.jobId).sort(), ['a', 'b']);
    assert.equal(chooseVictims(16, 'machine', candidates, HOSTS, freeOf()), undefined);
    // Across racks: 4 free on h2 (rack r1) + a's 8 on h0 (rack r0) = network level only.
    const spread = chooseVictims(12, 'network', [candidates[0]!], HOSTS, freeOf({ 'g0-h2': 4 }));
    assert.equal(spread?.level, 'network');
    assert.equal(chooseVictims(12, 'rack', [candidates[0]!], HOSTS, freeOf({ 'g0-h2': 4 })), undefined);
  });

  test('nothing to preempt or not enough: undefined', () => {
    assert.equal(chooseVictims(4, 'network', [], HOSTS, freeOf()), undefined);
    assert.equal(chooseVictims(64, 'network', [victim('a', 2, ['g0-h0', 8])], HOSTS, freeOf()), undefined);
  });
});

describe('eligibility: the quantum and the priority gap', () => {
  const options = { ...DEFAULT_PREEMPTION, quantumSeconds: 1800, minPriorityGap: 0.25 };
  test('a victim must have run a full quantum on its placement', () => {
    assert.equal(isEligibleVictim({ priority: 1, runningSince: 0 }, 0.5, 1799, options), false);
    assert.equal(isEligibleVictim({ priority: 1, runningSince: 0 }, 0.5, 1800, options), true);
    assert.equal(isEligibleVictim({ priority: 1, runningSince: undefined }, 0.5, 1e9, options), false);
  });
  test('and be clearly less slowed than the beneficiary', () => {
    assert.equal(isEligibleVictim({ priority: 0.74, runningSince: 0 }, 0.5, 1e6, options), false);
    assert.equal(isEligibleVictim({ priority: 0.75, runningSince: 0 }, 0.5, 1e6, options), true);
    // A fresh job (P = 1) cannot preempt a consolidated job running at the estimated speed (P ≈ 1).
    assert.equal(isEligibleVictim({ priority: 1.1, runningSince: 0 }, 1, 1e6, options), false);
  });
});

describe('cost guard', () => {
  test('pays when the gain exceeds gainFactor × checkpoint/restore GPU-seconds', () => {
    const base = { restartingGpus: 10, restartSeconds: 30, gainFactor: 1 };
    assert.equal(preemptionPays({ ...base, gainGpuSeconds: 300 }), false);
    assert.equal(preemptionPays({ ...base, gainGpuSeconds: 301 }), true);
    assert.equal(preemptionPays({ ...base, gainFactor: 2, gainGpuSeconds: 500 }), false);
  });
  test('validation names the field', () => {
    assert.throws(() => validatePreemption({ ...DEFAULT_PREEMPTION, quantumSeconds: -1 }), /quantumSeconds/);
    assert.throws(
      () => validatePreemption({ ...DEFAULT_PREEMPTION, minPriorityGap: Number.NaN }),
      /minPriorityGap/,
    );
    assert.throws(() => validatePreemption({ ...DEFAULT_PREEMPTION, gainFactor: -2 }), /gainFactor/);
  });
});
