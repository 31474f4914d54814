import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getGpuType } from '../../../../lib/core/catalog/gpus.ts';
import {
  declaredModelProfile,
  declaredProfileSchema,
  ESTIMATE_REFERENCE_MEMORY_GIB,
  estimatedModelProfile,
  estimateMemoryGiB,
  modelDisplayName,
  userModelId,
} from '../../../../lib/core/catalog/user-models.ts';
import { memoryPerGpuBytes } from '../../../../lib/core/perf/memory.ts';
import { DEFAULT_PERF_PARAMETERS } from '../../../../lib/core/perf/parameters.ts';

const issues = (value: unknown) => {
  const r = declaredProfileSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

const aggregate = { parameters: 3e8, flopsPerSample: 2e12, activationBytesPerSample: 4e8 };

describe('declared profiles', () => {
  test('aggregate figures or a layer chain are accepted', () => {
    assert.deepEqual(issues(aggregate), []);
    assert.deepEqual(
      issues({ layers: [{ flops: 1e9, paramBytes: 1e6, activationBytes: 1e5, outputBytes: 1e4 }] }),
      [],
    );
  });

  test('errors name the field and the rule', () => {
    assert.deepEqual(issues({ parameters: 3e8 }), [
      'flopsPerSample: is required (or describe the model as a layer chain with layers)',
      'activationBytesPerSample: is required (or describe the model as a layer chain with layers)',
    ]);
    assert.deepEqual(issues({ ...aggregate, parameters: -1 }), ['parameters: must be greater than 0']);
    assert.deepEqual(issues({ ...aggregate, flopsPerSample: 'lots' }), ['flopsPerSample: must be a number']);
    assert.deepEqual(issues({ ...aggregate, stateBytesPerParamByte: 8 }), [
      'stateBytesPerParamByte: applies only to a layer chain (layers)',
    ]);
    assert.deepEqual(issues({ ...aggregate, boundaryActivationBytesPerSample: 1 }), [
      'boundaryActivationBytesPerSample: applies only with parallelism: hybrid',
    ]);
    const both = issues({
      ...aggregate,
      layers: [{ flops: 1e9, paramBytes: 1, activationBytes: 1, outputBytes: 1 }],
    });
    assert.equal(both.length, 3);
    assert.ok(both.every((i) => i.includes('must not be given with layers')));
    assert.deepEqual(issues({ layers: [{ flops: 0, paramBytes: 1, activationBytes: 1, outputBytes: 1 }] }), [
      'layers: at least one layer must have flops > 0',
    ]);
    const unknown = issues({ ...aggregate, colour: 'red' });
    assert.equal(unknown.length, 1);
    assert.match(unknown[0]!, /colour/);
  });

  test('a layer chain is summed into the aggregate the performance model reads', () => {
    const p = declaredModelProfile(
      'x@1',
      'x',
      {
        layers: [
          { flops: 0, paramBytes: 2e8, activationBytes: 1e6, outputBytes: 5e5 },
          { flops: 3e11, paramBytes: 4e8, activationBytes: 2e7, outputBytes: 7e5 },
          { flops: 1e11, paramBytes: 0, activationBytes: 3e6, outputBytes: 4 },
        ],
      },
      64,
    );
    assert.equal(p.parameters, 3e8); // 6e8 weight bytes at 2 bytes each
    assert.equal(p.flopsPerSample, 4e11);
    assert.equal(p.memory.activationBytesPerSample, 2.4e7);
    assert.equal(p.memory.bytesPerParameter, 16); // mixed-precision Adam: 8 × the 2-byte weights
    assert.equal(p.kind, 'hybrid');
    assert.equal(p.boundaryActivationBytesPerSample, 7e5); // the widest cut, the last layer's output excluded
    assert.equal(p.defaultBatchSize, 64);
  });
});

describe('model ids', () => {
  test('a name and the figures behind it: the same figures give the same id, others another', () => {
    const request = { batchSize: 32, gpus: 4 };
    const a = userModelId({ name: 'acme/llm', profile: aggregate }, request);
    assert.match(a, /^acme\/llm@[0-9a-f]{12}$/);
    assert.equal(userModelId({ name: 'acme/llm', profile: { ...aggregate } }, { batchSize: 64, gpus: 1 }), a);
    assert.notEqual(
      userModelId({ name: 'acme/llm', profile: { ...aggregate, parameters: 4e8 } }, request),
      a,
    );
    const estimated = userModelId({ name: 'acme/llm' }, request);
    assert.notEqual(estimated, a);
    assert.notEqual(userModelId({ name: 'acme/llm' }, { batchSize: 32, gpus: 8 }), estimated);
    assert.equal(modelDisplayName(a), 'acme/llm');
    assert.equal(modelDisplayName('resnet50'), 'resnet50');
  });
});

describe('the conservative estimate', () => {
  const params = DEFAULT_PERF_PARAMETERS;
  const perGpu = (p: ReturnType<typeof estimatedModelProfile>, localBatch: number) =>
    memoryPerGpuBytes(p, {
      modelParallel: 1,
      localBatch,
      microBatchSize: 1,
      overheadGiB: params.memoryOverheadGiB,
    });

  test('fills the smallest allowed GPU at the requested count: fewer GPUs or a smaller GPU do not fit', () => {
    const p = estimatedModelProfile('m@1', 'm', { batchSize: 64, gpus: 4 });
    const t4 = getGpuType('T4').memoryGiB * 2 ** 30;
    assert.equal(estimateMemoryGiB(), ESTIMATE_REFERENCE_MEMORY_GIB);
    assert.ok(perGpu(p, 16) <= t4, 'fits a T4 at 4 GPUs');
    assert.ok(perGpu(p, 16) > 0.98 * t4, 'and fills it');
    assert.ok(perGpu(p, 32) > t4, 'does not fit at 2 GPUs');
    assert.ok(perGpu(p, 16) > getGpuType('K80').memoryGiB * 2 ** 30, 'does not fit a smaller GPU');
    assert.ok(perGpu(p, 8) < t4, 'fits at 8 GPUs');
    const onA100 = estimatedModelProfile('m@2', 'm', {
      batchSize: 64,
      gpus: 4,
      gpuTypes: ['A100-80GB', 'A10G'],
    });
    assert.equal(estimateMemoryGiB(['A100-80GB', 'A10G']), getGpuType('A10G').memoryGiB);
    assert.ok(onA100.parameters > p.parameters);
  });

  test('compute is a dense transformer of that size over 2,048 tokens per sample', () => {
    const p = estimatedModelProfile('m@1', 'm', { batchSize: 8, gpus: 1 });
    assert.equal(p.flopsPerSample, 6 * p.parameters * 2048);
    assert.equal(p.kind, 'dp');
    assert.equal(p.skew, 'high');
  });
});
