import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LAYERED_MODELS } from '../../../../../lib/core/catalog/layers.ts';
import {
  determineStages,
  fractionalGpus,
  roundToPowerOfTwo,
} from '../../../../../lib/core/plugins/crius/stages.ts';

// Crius Fig. 7: six operators on 8 GPUs; OP1 has 1/16 of the FLOPs, OP2 3/16. The three smallest inter-operator
// communication volumes are after OP2, OP4 and OP5.
const FIG7 = [1, 3, 2, 2, 4, 4].map((sixteenths, i) => ({
  flops: sixteenths * 1e12,
  outputBytes: [50, 10, 40, 20, 30, 0][i]!,
}));

describe('stage determination (Crius §4.2)', () => {
  test("the paper's example: FLOP-proportional GPUs, cuts at the 3 smallest volumes, 4 power-of-two stages", () => {
    const shares = fractionalGpus(FIG7, 8);
    assert.equal(shares[0], 0.5);
    assert.equal(shares[1], 1.5);
    assert.deepEqual(shares, [0.5, 1.5, 1, 1, 2, 2]);
    const split = determineStages(FIG7, 8, 4);
    assert.deepEqual(split, { stageGpus: [2, 2, 2, 2], stageLayers: [0, 2, 4, 5] });
  });

  test('cuts follow the smallest communication when several splits round exactly', () => {
    // Equal FLOPs; the boundary after layer 2 is cheapest, so a 2-stage split cuts there, not in the middle.
    const layers = [1, 1, 1, 1].map((f, i) => ({ flops: f, outputBytes: [100, 5, 100, 0][i]! }));
    assert.deepEqual(determineStages(layers, 4, 2), { stageGpus: [2, 2], stageLayers: [0, 2] });
    const skewed = [1, 1, 1, 1].map((f, i) => ({ flops: f, outputBytes: [5, 100, 100, 0][i]! }));
    // Cutting after layer 1 would give shares 1 and 3 (→ 1 + 4 = 5 GPUs ≠ 4): the cheap cut is not exact, and
    // with 4 GPUs the 2+2 split is the one that rounds exactly.
    assert.deepEqual(determineStages(skewed, 4, 2), { stageGpus: [2, 2], stageLayers: [0, 2] });
  });

  test('equal boundaries (identical blocks) give balanced stages', () => {
    const blocks = Array.from({ length: 8 }, () => ({ flops: 1, outputBytes: 7 }));
    assert.deepEqual(determineStages(blocks, 8, 4), { stageGpus: [2, 2, 2, 2], stageLayers: [0, 2, 4, 6] });
  });

  test('every stage gets a power of two and the stages sum to the Cell', () => {
    for (const model of LAYERED_MODELS) {
      for (const gpus of [1, 2, 4, 8, 16, 32, 64]) {
        for (let stages = 1; stages <= Math.min(gpus, model.layers.length); stages *= 2) {
          const split = determineStages(model.layers, gpus, stages);
          assert.ok(split, `${model.id} on ${gpus} GPUs in ${stages} stages`);
          assert.equal(split.stageGpus.length, stages);
          assert.equal(
            split.stageGpus.reduce((a, b) => a + b, 0),
            gpus,
          );
          for (const g of split.stageGpus) assert.equal(roundToPowerOfTwo(g), g);
          assert.equal(split.stageLayers[0], 0);
          for (let k = 1; k < stages; k++) assert.ok(split.stageLayers[k]! > split.stageLayers[k - 1]!);
        }
      }
    }
  });

  test('splits that cannot be made of powers of two, or need more stages than layers or GPUs, are rejected', () => {
    const layers = [1, 1, 1].map((f) => ({ flops: f, outputBytes: 1 }));
    assert.equal(determineStages(layers, 3, 1), undefined); // 3 GPUs is no power of two
    assert.equal(determineStages(layers, 4, 4), undefined); // more stages than layers
    assert.equal(determineStages(layers, 2, 3), undefined); // more stages than GPUs
    assert.deepEqual(
      determineStages(layers, 3, 2)?.stageGpus.reduce((a, b) => a + b, 0),
      3,
    );
  });
});
