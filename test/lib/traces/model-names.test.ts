import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseModelName, parseJobType } from '../../../lib/traces/model-names.ts';

describe('normaliseModelName', () => {
  test('gives catalog-style ids', () => {
    const cases: [string, string][] = [
      ['ResNet-50', 'resnet50'],
      ['VGG_19', 'vgg19'],
      ['Bert-Large', 'bert-large'],
      ['GPT3-XL', 'gpt3-xl'],
      ['Wide ResNet', 'wide-resnet'],
      ['  LM ', 'lm'],
      ['inception4', 'inception4'],
    ];
    for (const [raw, id] of cases) assert.equal(normaliseModelName(raw), id, raw);
  });
});

describe('parseJobType', () => {
  test('splits Gavel job types into model and batch size', () => {
    assert.deepEqual(parseJobType('ResNet-50 (batch size 64)'), { model: 'resnet50', batchSize: 64 });
    assert.deepEqual(parseJobType('Recommendation (batch size 8192)'), {
      model: 'recommendation',
      batchSize: 8192,
    });
    assert.deepEqual(parseJobType('A3C'), { model: 'a3c' });
    assert.equal(parseJobType('(batch size 8)'), undefined);
    assert.equal(parseJobType('ResNet-50 (batch size 0)'), undefined);
  });
});
