import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEGACY_MS_THRESHOLD, toEpochSeconds } from '../../../../lib/aws/items/epoch-seconds.ts';
import { hostItemSchema } from '../../../../lib/aws/items/host-item.ts';
import { jobItemSchema } from '../../../../lib/aws/items/job-item.ts';
import { hostItem, jobItem } from '../support/items.ts';

const NOW = 1_763_900_000; // 2025-11-23, epoch seconds

describe('epoch seconds, with legacy milliseconds read as seconds', () => {
  test('seconds stay; a value only milliseconds can be is divided by 1000', () => {
    assert.equal(toEpochSeconds(NOW), NOW);
    assert.equal(toEpochSeconds(NOW + 0.25), NOW + 0.25);
    assert.equal(toEpochSeconds(NOW * 1000 + 250), NOW + 0.25);
    assert.equal(toEpochSeconds(0), 0, 'small values (tests, durations) are seconds');
    // The threshold lies between any plausible instant in seconds (< year 5138) and in ms (> March 1973).
    assert.ok(LEGACY_MS_THRESHOLD > Date.parse('5000-01-01') / 1000);
    assert.ok(LEGACY_MS_THRESHOLD < Date.parse('1974-01-01'));
  });

  test('a job item stored in ms parses to seconds; one in seconds is unchanged', () => {
    const seconds = jobItem('j', {
      submittedAt: NOW,
      updatedAt: NOW + 5,
      changedAt: NOW + 5,
      lastProgressAt: NOW + 4,
    });
    const legacy = {
      ...seconds,
      submittedAt: NOW * 1000,
      updatedAt: (NOW + 5) * 1000,
      changedAt: (NOW + 5) * 1000,
      lastProgressAt: (NOW + 4) * 1000,
    };
    const a = jobItemSchema.parse(seconds);
    const b = jobItemSchema.parse(legacy);
    for (const field of ['submittedAt', 'updatedAt', 'changedAt', 'lastProgressAt'] as const)
      assert.equal(b[field], a[field], field);
    assert.deepEqual(jobItemSchema.parse(a), a, 'parsing twice changes nothing');
  });

  test('a host item stored in ms parses to seconds', () => {
    const host = hostItem('h');
    const legacy = {
      ...host,
      stateChangedAt: NOW * 1000,
      launchedAt: (NOW - 60) * 1000,
      registeredAt: (NOW - 30) * 1000,
      lastHeartbeatAt: (NOW - 1) * 1000,
      idleSince: (NOW - 10) * 1000,
    };
    const parsed = hostItemSchema.parse(legacy);
    assert.deepEqual(
      [
        parsed.stateChangedAt,
        parsed.launchedAt,
        parsed.registeredAt,
        parsed.lastHeartbeatAt,
        parsed.idleSince,
      ],
      [NOW, NOW - 60, NOW - 30, NOW - 1, NOW - 10],
    );
  });
});
