import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Level } from '../../../../../lib/core/model/topology.ts';
import {
  acceptableLevel,
  type DelayTimers,
  decideOffer,
  effectiveTimers,
} from '../../../../../lib/core/plugins/dally/delay-rule.ts';

const HOUR = 3600;
const TIMERS: DelayTimers = { machine: 2 * HOUR, rack: 3 * HOUR };
const CAPACITY = { machine: 8, rack: 64 };

type Expected = 'reject' | 'accept' | 'accept+machine' | 'accept+rack';

const outcome = (offer: Level, waitedHours: number, gpus: number): Expected => {
  const timers = effectiveTimers(TIMERS, gpus, CAPACITY);
  const d = decideOffer(offer, waitedHours * HOUR, timers);
  if (!d.accept) return 'reject';
  return d.record ? `accept+${d.record}` : 'accept';
};

describe('Algorithm 1: accept/reject by level × time waited × demand', () => {
  // [offer level, hours waited, GPU demand, expected]; Tm = 2 h, Tr = 3 h, machine 8 GPUs, rack 64 GPUs.
  const table: [Level, number, number, Expected][] = [
    // Fits a machine: machine at once, rack after Tm, network after Tm + Tr.
    ['machine', 0, 4, 'accept+machine'],
    ['rack', 0, 4, 'reject'],
    ['network', 0, 4, 'reject'],
    ['rack', 1.99, 4, 'reject'],
    ['rack', 2, 4, 'accept+rack'],
    ['network', 2, 4, 'reject'],
    ['network', 4.99, 4, 'reject'],
    ['network', 5, 4, 'accept'],
    ['machine', 9, 8, 'accept+machine'],
    // Larger than a machine: Tm = 0, so rack at once and network after Tr alone.
    ['rack', 0, 16, 'accept+rack'],
    ['network', 0, 16, 'reject'],
    ['network', 2.99, 16, 'reject'],
    ['network', 3, 16, 'accept'],
    // Larger than a rack: both timers 0, anything at once.
    ['network', 0, 128, 'accept'],
    ['rack', 0, 65, 'accept+rack'],
  ];
  for (const [offer, hours, gpus, expected] of table) {
    test(`${gpus} GPUs, ${offer} offer after ${hours} h → ${expected}`, () => {
      assert.equal(outcome(offer, hours, gpus), expected);
    });
  }

  test('infinite timers never accept a network offer for a job that fits a rack', () => {
    const full = effectiveTimers({ machine: Infinity, rack: Infinity }, 4, CAPACITY);
    assert.deepEqual(decideOffer('network', 1e12, full), { accept: false });
    assert.deepEqual(decideOffer('rack', 1e12, full), { accept: false });
    const wide = effectiveTimers({ machine: Infinity, rack: Infinity }, 16, CAPACITY);
    assert.deepEqual(decideOffer('rack', 0, wide), { accept: true, record: 'rack' });
    assert.deepEqual(decideOffer('network', 1e12, wide), { accept: false });
  });

  test('zero timers accept anything at once (Dally-noWait)', () => {
    for (const level of ['machine', 'rack', 'network'] as const) {
      assert.equal(decideOffer(level, 0, { machine: 0, rack: 0 }).accept, true);
    }
  });
});

describe('acceptableLevel and effectiveTimers', () => {
  test('the worst level accepted grows with the wait', () => {
    assert.equal(acceptableLevel(0, TIMERS), 'machine');
    assert.equal(acceptableLevel(2 * HOUR, TIMERS), 'rack');
    assert.equal(acceptableLevel(5 * HOUR - 1, TIMERS), 'rack');
    assert.equal(acceptableLevel(5 * HOUR, TIMERS), 'network');
  });

  test('zeroes the machine timer above a machine and both above a rack', () => {
    assert.deepEqual(effectiveTimers(TIMERS, 8, CAPACITY), TIMERS);
    assert.deepEqual(effectiveTimers(TIMERS, 9, CAPACITY), { machine: 0, rack: 3 * HOUR });
    assert.deepEqual(effectiveTimers(TIMERS, 64, CAPACITY), { machine: 0, rack: 3 * HOUR });
    assert.deepEqual(effectiveTimers(TIMERS, 65, CAPACITY), { machine: 0, rack: 0 });
  });
});
