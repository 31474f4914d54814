import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  expectedSavedFraction,
  modelError,
  normalCdf,
  slowerChance,
} from '../../../../../lib/core/plugins/tessera/trial-value.ts';

/** E[max(0, 1 − e^(−Z))], Z ~ N(x, σ²), by the midpoint rule over ±8σ: the plain definition. */
const integrated = (x: number, sigma: number): number => {
  const steps = 20_000;
  const from = x - 8 * sigma;
  const width = (16 * sigma) / steps;
  let sum = 0;
  for (let i = 0; i < steps; i++) {
    const z = from + (i + 0.5) * width;
    const density = Math.exp(-(((z - x) / sigma) ** 2) / 2) / (sigma * Math.sqrt(2 * Math.PI));
    sum += Math.max(0, 1 - Math.exp(-z)) * density * width;
  }
  return sum;
};

describe('what a type trial is worth', () => {
  test('the normal CDF at known points', () => {
    assert.ok(Math.abs(normalCdf(0) - 0.5) < 1e-7);
    assert.ok(Math.abs(normalCdf(1.96) - 0.975) < 1e-4);
    assert.ok(Math.abs(normalCdf(-1) - 0.158655) < 1e-5);
  });

  test('the expected saved fraction is the integral of its definition', () => {
    for (const [x, sigma] of [
      [0.083, 0.15],
      [-0.1, 0.1],
      [0.3, 0.05],
      [-0.25, 0.2],
    ] as const) {
      const closed = expectedSavedFraction(x, sigma);
      assert.ok(Math.abs(closed - integrated(x, sigma)) < 1e-5, `x ${x} σ ${sigma}: ${closed}`);
    }
    // A certain estimate saves exactly its gain, or nothing.
    assert.ok(Math.abs(expectedSavedFraction(Math.log(1.25), 0) - 0.2) < 1e-12);
    assert.equal(expectedSavedFraction(-0.1, 0), 0);
  });

  test('the chance a trial turns out slower', () => {
    assert.ok(Math.abs(slowerChance(0, 0.1) - 0.5) < 1e-7);
    assert.ok(slowerChance(0.2, 0.1) < 0.03);
    assert.equal(slowerChance(-0.1, 0), 1);
  });

  test('the model error: the RMS of the learned log factors, shrunk towards the prior', () => {
    assert.equal(modelError(undefined, 0.1, 4), 0.1);
    // Four factors of e^±0.2 and a prior 0.1 of weight 4: sqrt((4 · 0.04 + 4 · 0.01) / 8).
    const f = { 'a|x': Math.exp(0.2), 'a|y': Math.exp(-0.2), 'b|x': Math.exp(0.2), 'b|y': Math.exp(-0.2) };
    assert.ok(Math.abs(modelError(f, 0.1, 4) - Math.sqrt(0.2 / 8)) < 1e-12);
  });
});
