import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { accumulatedStep } from '../../../../lib/core/perf/pollux-accumulation.ts';
import { resolveDataDir } from '../../../../lib/data/data-dir.ts';
import { loadDefaultPerfModel } from '../../../../lib/data/perf.ts';

describe('Pollux gradient accumulation (shared NOTICE.md, "Pollux applications")', () => {
  const measured = (local: number) => (local <= 8 ? { stepTime: local / 8, syncTime: 0.25 } : undefined);

  test('within the measured local batches: the measurement itself', () => {
    assert.deepEqual(accumulatedStep(8, 8, measured), { stepTime: 1, syncTime: 0.25 });
    assert.deepEqual(accumulatedStep(4, 8, measured), { stepTime: 0.5, syncTime: 0.25 });
  });

  test('above them: ⌈local ÷ max⌉ − 1 extra micro-steps of ⌈local ÷ (accum + 1)⌉, each the step less its sync', () => {
    // local 20, max 8: accum = 2, micro-batch ⌈20 / 3⌉ = 7, step 7/8, sync 0.25 → 0.875 + 2 × 0.625.
    const s = accumulatedStep(20, 8, measured)!;
    assert.ok(Math.abs(s.stepTime - (0.875 + 2 * 0.625)) < 1e-12);
    assert.equal(s.syncTime, 0.25);
  });

  test('the real model: bert at batch 384 on 6 T4s (3 + 3) takes the artifact rule’s step time, not "does not fit"', () => {
    // placements.csv, placement 33 (3 GPUs on each of 2 nodes): local 64 > 12 (bert's largest) → accum 5 at local 11.
    const rows = readFileSync(join(resolveDataDir(), 'pollux', 'bert', 'placements.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const at11 = rows.find((r) => r[0] === '33' && r[1] === '11')!;
    const step = Number(at11[2]);
    const sync = Number(at11[3]);
    const expected = step + 5 * (step - sync);
    const perf = loadDefaultPerfModel();
    const estimate = perf.throughput({
      model: 'bert',
      batchSize: 384,
      gpuType: 'T4',
      gpus: 6,
      shape: { level: 'rack', hosts: 2 },
    });
    assert.equal(estimate.source, 'measured');
    assert.ok(Math.abs(1 / estimate.iterationsPerSecond - expected) / expected < 1e-9);
  });
});
