import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildModelIndex,
  findModelProfile,
  getModelProfile,
  MODEL_PROFILES,
  resolveModelName,
} from '../../../../lib/core/catalog/models.ts';
import { normaliseModelName } from '../../../../lib/core/catalog/names.ts';
import { isHighSkew } from '../../../../lib/core/catalog/skew.ts';

describe('model names', () => {
  test('normalises spellings and splits off a Gavel batch suffix', () => {
    assert.deepEqual(normaliseModelName('ResNet-50'), { key: 'resnet50' });
    assert.deepEqual(normaliseModelName('resnet_50'), { key: 'resnet50' });
    assert.deepEqual(normaliseModelName('ResNet-50 (batch size 64)'), { key: 'resnet50', batchSize: 64 });
    assert.deepEqual(normaliseModelName('GPT3-2.7B'), { key: 'gpt32.7b' });
    assert.throws(() => normaliseModelName(' - '), /no letters or digits/);
  });

  test('resolves source names to catalog ids with their batch size', () => {
    assert.deepEqual(resolveModelName('ResNet-50 (batch size 64)'), { model: 'resnet50', batchSize: 64 });
    assert.deepEqual(resolveModelName('LM (batch size 20)'), { model: 'lstm-lm', batchSize: 20 });
    assert.deepEqual(resolveModelName('A3C'), { model: 'a3c' });
    assert.throws(
      () => resolveModelName('Mystery (batch size 8)'),
      /unknown model "Mystery \(batch size 8\)"; known models: alexnet/,
    );
  });

  test('every model the papers and data files name resolves', () => {
    const names: Record<string, string> = {
      // Gavel job types
      'ResNet-18': 'resnet18',
      Transformer: 'transformer',
      Recommendation: 'recommendation',
      CycleGAN: 'cyclegan',
      // Tiresias
      vgg16: 'vgg16',
      googlenet: 'googlenet',
      inception3: 'inception3',
      inception4: 'inception4',
      resnet101: 'resnet101',
      resnet152: 'resnet152',
      // Dally Table I
      VGG11: 'vgg11',
      AlexNet: 'alexnet',
      MobileNetV3: 'mobilenetv3',
      'BERT large': 'bert-large',
      // Pollux applications
      bert: 'bert-base',
      cifar10: 'resnet18',
      deepspeech2: 'deepspeech2',
      imagenet: 'resnet50',
      ncf: 'neumf',
      yolov3: 'yolov3',
      // Tesserae / Blox
      'VGG-19': 'vgg19',
      DCGAN: 'dcgan',
      PointNet: 'pointnet',
      'GPT3-Medium': 'gpt3-medium',
      'GPT3-XL': 'gpt3-xl',
      'GPT3-3B': 'gpt3-2.7b',
      'GPT2-Medium': 'gpt2-medium',
      'Bert-Large': 'bert-large',
      // EasyScale Table 1
      ShuffleNetv2: 'shufflenetv2',
      NeuMF: 'neumf',
      Electra: 'electra-base',
      SwinTransformer: 'swin-t',
      // Crius Table 2
      'Wide-ResNet-6.8B': 'wide-resnet-6.8b',
      'BERT-0.76B': 'bert-0.76b',
      'GShard-MoE-27B': 'moe-27b',
    };
    for (const [name, id] of Object.entries(names)) assert.equal(getModelProfile(name).id, id, name);
  });

  test('an unknown model throws a RangeError listing the known ids; find returns undefined', () => {
    assert.equal(findModelProfile('nope'), undefined);
    assert.throws(
      () => getModelProfile('nope'),
      (e: unknown) => e instanceof RangeError && MODEL_PROFILES.every((p) => e.message.includes(p.id)),
    );
  });

  test('a catalog whose names collide is rejected', () => {
    const [a, b] = MODEL_PROFILES;
    assert.ok(a && b);
    assert.throws(() => buildModelIndex([a, { ...b, aliases: [a.id.toUpperCase()] }]), /collides with/);
  });
});

describe('model profiles', () => {
  test('every profile has positive sizes, a default batch and hybrid boundary bytes', () => {
    for (const p of MODEL_PROFILES) {
      for (const v of [p.parameters, p.flopsPerSample, p.defaultBatchSize, p.memory.bytesPerParameter]) {
        assert.ok(Number.isFinite(v) && v > 0, `${p.id}: ${v}`);
      }
      assert.ok(p.memory.activationBytesPerSample > 0, p.id);
      assert.equal(p.kind === 'hybrid', (p.boundaryActivationBytesPerSample ?? 0) > 0, p.id);
    }
  });

  test('derived sizes match the published ones', () => {
    const near = (actual: number, expected: number, tolerance: number, what: string) =>
      assert.ok(Math.abs(actual / expected - 1) <= tolerance, `${what}: ${actual} vs ${expected}`);
    near(getModelProfile('gpt3-xl').parameters, 1.3e9, 0.03, 'GPT-3 XL parameters');
    near(getModelProfile('gpt3-2.7b').parameters, 2.7e9, 0.03, 'GPT-3 2.7B parameters');
    near(getModelProfile('bert-large').parameters, 340e6, 0.03, 'BERT-large parameters');
    near(getModelProfile('bert-base').parameters, 110e6, 0.03, 'BERT-base parameters');
    // Crius Table 2 sizes.
    for (const [id, b] of [
      ['bert-0.76b', 0.76],
      ['bert-6.7b', 6.7],
      ['moe-0.69b', 0.69],
      ['moe-1.3b', 1.3],
      ['moe-2.4b', 2.4],
      ['moe-10b', 10],
      ['moe-27b', 27],
      ['wide-resnet-0.5b', 0.5],
    ] as const) {
      near(getModelProfile(id).parameters, b * 1e9, 0.06, id);
    }
    // Dense training FLOPs ≈ 6·N·tokens (the attention term adds the rest).
    const xl = getModelProfile('gpt3-xl');
    near(xl.flopsPerSample, 6 * xl.parameters * 2048, 0.3, 'GPT-3 XL FLOPs');
    // ResNet-50: 4.11 GMACs forward → ≈24.7 GFLOPs per training sample.
    near(getModelProfile('resnet50').flopsPerSample, 24.66e9, 0.01, 'ResNet-50 FLOPs');
  });

  test('skew follows Tiresias and Dally Table I', () => {
    for (const m of ['vgg11', 'vgg19', 'alexnet', 'MobileNetV3']) assert.equal(isHighSkew(m), true, m);
    for (const m of ['resnet50', 'ResNet-18', 'bert-large', 'inception3'])
      assert.equal(isHighSkew(m), false, m);
    assert.equal(isHighSkew('not-in-catalog'), false);
  });
});
