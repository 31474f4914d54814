import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  CRIUS_BATCH_SIZES,
  findLayeredModel,
  LAYERED_MODELS,
  parameterCount,
  parseLayeredModel,
  parseLayeredModelJson,
  totalFlops,
} from '../../../../lib/core/catalog/layers.ts';
import { getModelProfile } from '../../../../lib/core/catalog/models.ts';

describe('layer chains', () => {
  test('every chain agrees with its aggregate catalog profile (parameters, FLOPs)', () => {
    for (const model of LAYERED_MODELS) {
      const profile = getModelProfile(model.id);
      const params = parameterCount(model);
      assert.ok(Math.abs(params / profile.parameters - 1) < 0.01, `${model.id} parameters ${params}`);
      assert.ok(Math.abs(totalFlops(model) / profile.flopsPerSample - 1) < 0.03, `${model.id} FLOPs`);
    }
  });

  test("Crius Table 2: the families' sizes and global batch sizes", () => {
    const ids = LAYERED_MODELS.map((m) => m.id);
    for (const id of [
      'wide-resnet-0.5b',
      'wide-resnet-6.8b',
      'bert-0.76b',
      'bert-6.7b',
      'moe-0.69b',
      'moe-27b',
      'gpt3-xl',
    ])
      assert.ok(ids.includes(id), id);
    assert.deepEqual(findLayeredModel('wide-resnet-2b')?.batchSizes, [256, 512, 1024]);
    assert.deepEqual(findLayeredModel('bert-2.6b')?.batchSizes, [128, 256, 512]);
    assert.deepEqual(findLayeredModel('moe-10b')?.batchSizes, CRIUS_BATCH_SIZES.moe);
    // Aliases resolve through the catalog; aggregate-only models have no chain.
    assert.equal(findLayeredModel('gshard-moe-10b')?.id, 'moe-10b');
    assert.equal(findLayeredModel('resnet50'), undefined);
  });

  test('MoE layers split as experts (all-to-all); dense layers all-reduce', () => {
    const moe = findLayeredModel('moe-2.4b')!;
    assert.ok(moe.layers.some((l) => l.tensorParallel.collective === 'all-to-all'));
    assert.ok(moe.layers.some((l) => l.tensorParallel.collective === 'all-reduce'));
  });
});

describe('user profiles', () => {
  const good = {
    id: 'my-model',
    family: 'transformer',
    batchSizes: [64],
    layers: [
      { flops: 1e12, paramBytes: 1e8, activationBytes: 1e7, outputBytes: 1e6 },
      {
        name: 'head',
        flops: 2e11,
        paramBytes: 0,
        activationBytes: 1e6,
        outputBytes: 4,
        tensorParallel: { collective: 'all-to-all', count: 2 },
      },
    ],
  };

  test('a valid profile parses with defaults filled in', () => {
    const m = parseLayeredModel(good, 'my.json');
    assert.equal(m.layers[0]!.name, 'layer-1');
    assert.equal(m.layers[1]!.tensorParallel.collective, 'all-to-all');
    assert.equal(m.stateBytesPerParamByte, 8);
    assert.equal(m.source, 'my.json');
  });

  test('the example of docs/crius.md parses', () => {
    const docs = readFileSync(new URL('../../../../docs/crius.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(docs)?.[1];
    assert.ok(example);
    const m = parseLayeredModelJson(example, 'docs/crius.md');
    assert.equal(m.id, 'my-llm');
    assert.equal(m.layers.length, 2);
    assert.equal(m.layers[0]!.tensorParallel.count, 4);
  });

  test('errors name the file, the field path and the rule', () => {
    const bad = { ...good, layers: [{ ...good.layers[0], flops: -1 }, good.layers[1]] };
    assert.throws(
      () => parseLayeredModel(bad, 'my.json'),
      /my\.json: invalid layer profile: layers\[0\]\.flops: /,
    );
    assert.throws(() => parseLayeredModel({ ...good, layers: [] }, 'p.json'), /p\.json: .*layers: /);
    const idle = { ...good, layers: [{ ...good.layers[0], flops: 0 }] };
    assert.throws(() => parseLayeredModel(idle, 'p.json'), /layers: at least one layer must have flops > 0/);
    assert.throws(() => parseLayeredModel({ ...good, family: 'quantum' }, 'p.json'), /family: /);
    assert.throws(() => parseLayeredModel({ ...good, extra: 1 }, 'p.json'), /extra|Unrecognized/);
    assert.throws(() => parseLayeredModelJson('{ nope', 'broken.json'), /broken\.json: not valid JSON/);
  });
});
