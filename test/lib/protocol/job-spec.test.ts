import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  formatJobSpecIssues,
  jobSpecFingerprint,
  MAX_JOB_SPEC_BYTES,
  MAX_LAUNCH_BYTES,
  parseJobSpecJson,
  toJobLaunch,
  toJobSpec,
  validateJobSpec,
} from '../../../lib/protocol/job-spec.ts';

const valid = {
  name: 'bert-finetune',
  model: 'BERT-large',
  batchSize: 32,
  gpus: 4,
  gpuTypes: ['a100', 'V100'],
  preferredGpuType: 'A100',
  iterations: 10_000,
  priority: 5,
  deadline: '2026-12-01T00:00:00Z',
  packable: true,
  labels: { team: 'nlp' },
  command: ['python3', '-m', 'train'],
  env: { LR: '0.1' },
  clientToken: 'run-42',
};

const issuesOf = (value: unknown) => {
  const result = validateJobSpec(value);
  assert.equal(result.ok, false, 'expected the document to be rejected');
  return result.ok ? [] : result.issues;
};

const issueFor = (value: unknown, field: string) => {
  const issue = issuesOf(value).find((i) => i.field === field);
  assert.ok(issue, `expected an issue for ${field}, got ${JSON.stringify(issuesOf(value))}`);
  return issue.rule;
};

describe('job spec schema', () => {
  test('accepts a full document and resolves catalog aliases', () => {
    const result = validateJobSpec(valid);
    assert.ok(result.ok);
    assert.equal(result.document.model, 'bert-large');
    assert.deepEqual(result.document.gpuTypes, ['A100-40GB', 'V100-16GB']);
    assert.equal(result.document.preferredGpuType, 'A100-40GB');
  });

  test('converts to the core JobSpec with defaults and the deadline in seconds', () => {
    const result = validateJobSpec({
      model: 'resnet50',
      batchSize: 64,
      gpus: 1,
      iterations: 10,
      command: ['x'],
    });
    assert.ok(result.ok);
    const spec = toJobSpec(result.document, { id: 'job-1', tenant: 't', submitTime: 100 });
    assert.deepEqual(spec, {
      id: 'job-1',
      tenant: 't',
      model: 'resnet50',
      batchSize: 64,
      gpus: 1,
      iterations: 10,
      priority: 0,
      packable: false,
      submitTime: 100,
    });
    const full = validateJobSpec(valid);
    assert.ok(full.ok);
    assert.equal(
      toJobSpec(full.document, { id: 'j', tenant: 't', submitTime: 0 }).deadline,
      Date.parse(valid.deadline) / 1000,
    );
    assert.deepEqual(toJobLaunch(full.document), { command: valid.command, env: valid.env });
  });

  test('elastic jobs get their defaults and bounds', () => {
    const ok = validateJobSpec({ ...valid, gpus: 8, elastic: { maxP: 4 } });
    assert.ok(ok.ok);
    assert.deepEqual(ok.document.elastic, { maxP: 4, minGpus: 0, heterogeneous: false });
    assert.match(issueFor({ ...valid, gpus: 9, elastic: { maxP: 4 } }, 'gpus'), /2 × elastic.maxP/);
    assert.match(issueFor({ ...valid, elastic: { maxP: 2, minGpus: 5 } }, 'elastic.minGpus'), /2 × maxP/);
  });

  test('an unknown GPU type names the list position and the known types', () => {
    assert.match(
      issueFor({ ...valid, gpuTypes: ['A100', 'Z80'] }, 'gpuTypes.1'),
      /unknown GPU type "Z80"; known types: .*A100-40GB/,
    );
    assert.match(
      issueFor({ ...valid, preferredGpuType: 'T4' }, 'preferredGpuType'),
      /must be one of gpuTypes/,
    );
    assert.match(issueFor({ ...valid, gpuTypes: ['A100', 'a100'] }, 'gpuTypes'), /twice/);
  });

  test('negative and zero counts are rejected with the rule', () => {
    assert.equal(issueFor({ ...valid, gpus: -2 }, 'gpus'), 'must be at least 1');
    assert.equal(issueFor({ ...valid, batchSize: 0 }, 'batchSize'), 'must be at least 1');
    assert.equal(issueFor({ ...valid, iterations: -1 }, 'iterations'), 'must be at least 1');
    assert.equal(issueFor({ ...valid, gpus: 1.5 }, 'gpus'), 'must be an integer');
    assert.equal(issueFor({ ...valid, gpus: 5000 }, 'gpus'), 'must be at most 1024');
  });

  test('wrong types and unknown fields are named', () => {
    assert.equal(issueFor({ ...valid, gpus: '4' }, 'gpus'), 'must be an integer');
    assert.equal(
      issueFor({ ...valid, packable: 'yes' }, 'packable'),
      'must be true or false; got a string ("yes")',
    );
    assert.equal(issueFor({ ...valid, model: 7 }, 'model'), 'must be a string; got a number (7)');
    assert.equal(issueFor({ ...valid, gpu: 4 }, 'gpu'), 'unknown field (did you mean gpus?)');
    assert.match(issueFor([], '(document)'), /must be a mapping of fields, .*; got a list/);
    assert.match(issueFor({ ...valid, deadline: 'tomorrow' }, 'deadline'), /ISO 8601/);
  });

  test('env may not set variables the agent manages, and names must be valid', () => {
    assert.match(
      issueFor({ ...valid, env: { TESSERA_RANK: '3' } }, 'env.TESSERA_RANK'),
      /host agent manages/,
    );
    assert.match(issueFor({ ...valid, env: { '1BAD': 'x' } }, 'env.1BAD'), /valid environment variable name/);
    assert.match(issueFor({ ...valid, command: [] }, 'command'), /program to run/);
    assert.match(issueFor({ ...valid, clientToken: 'has space' }, 'clientToken'), /\[A-Za-z0-9._:-\]/);
  });

  test('launch settings that could not fit in a host desired state are refused, naming the rule', () => {
    // 15 arguments of 4 KiB: each within its own limit, together far over what a host item can carry 16 times.
    const rule = issueFor(
      { ...valid, command: Array.from({ length: 15 }, () => 'x'.repeat(4000)) },
      'command',
    );
    assert.match(
      rule,
      new RegExp(`command and env together must be at most ${MAX_LAUNCH_BYTES} bytes, got \\d+`),
    );
    assert.ok(
      validateJobSpec({ ...valid, command: ['x'.repeat(4000), 'y'.repeat(4000)] }).ok,
      'moderate sizes pass',
    );
  });

  test('__proto__ keys in labels or env and NUL characters are rejected, never dropped', () => {
    const proto = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    assert.match(issueFor({ ...valid, labels: proto }, 'labels.__proto__'), /reserved key/);
    assert.match(issueFor({ ...valid, env: proto }, 'env.__proto__'), /reserved key/);
    assert.match(issueFor({ ...valid, command: ['python3', 'a\u0000b'] }, 'command.1'), /NUL/);
    assert.match(issueFor({ ...valid, env: { LR: '0\u0000' } }, 'env.LR'), /NUL/);
    const viaJson = parseJobSpecJson(JSON.stringify(valid).replace('"team"', '"__proto__"'));
    assert.ok(!viaJson.ok && viaJson.issues.some((i) => i.field === 'labels.__proto__'));
  });

  test('every problem is reported at once', () => {
    const issues = issuesOf({ model: 'no pe!', batchSize: -1, gpus: 'x', iterations: 0 });
    assert.deepEqual(issues.map((i) => i.field).sort(), [
      'batchSize',
      'command',
      'gpus',
      'iterations',
      'model',
    ]);
    assert.match(formatJobSpecIssues(issues), /model: "no pe!" is not a catalog model/);
  });
});

describe('models outside the catalog', () => {
  const own = {
    ...valid,
    model: 'meta-llama/Llama-3-8B',
    gpuTypes: ['A100-80GB'],
    preferredGpuType: 'A100-80GB',
  };
  const profile = {
    parameters: 8.0e9,
    flopsPerSample: 9.8e13,
    activationBytesPerSample: 2.2e9,
    parallelism: 'hybrid',
  };
  const identity = { id: 'job-1', tenant: 't', submitTime: 0 };

  test('any other name is accepted: without a profile the job starts from the estimate', () => {
    const result = validateJobSpec(own);
    assert.ok(result.ok, JSON.stringify(result));
    const spec = toJobSpec(result.document, identity);
    assert.deepEqual(spec.userModel, { name: 'meta-llama/Llama-3-8B' });
    assert.match(spec.model, /^meta-llama\/Llama-3-8B@[0-9a-f]{12}$/);
  });

  test('a declared profile is kept and keys the model id', () => {
    const result = validateJobSpec({ ...own, profile });
    assert.ok(result.ok, JSON.stringify(result));
    const spec = toJobSpec(result.document, identity);
    assert.deepEqual(spec.userModel?.profile, profile);
    const plain = validateJobSpec(own);
    assert.ok(plain.ok);
    assert.notEqual(spec.model, toJobSpec(plain.document, identity).model);
    const layered = validateJobSpec({
      ...own,
      profile: { layers: [{ flops: 1e12, paramBytes: 1e9, activationBytes: 1e8, outputBytes: 1e6 }] },
    });
    assert.ok(layered.ok, JSON.stringify(layered));
  });

  test('profile errors name the field path and the rule', () => {
    assert.match(issueFor({ ...own, profile: { parameters: 8e9 } }, 'profile.flopsPerSample'), /is required/);
    assert.match(
      issueFor({ ...own, profile: { ...profile, parameters: 0 } }, 'profile.parameters'),
      /greater than 0/,
    );
    assert.match(
      issueFor(
        { ...own, profile: { layers: [{ flops: -1, paramBytes: 1, activationBytes: 1, outputBytes: 1 }] } },
        'profile.layers.0.flops',
      ),
      /./,
    );
    assert.match(
      issueFor({ ...valid, profile }, 'profile'),
      /must not be given for the catalog model "bert-large"/,
    );
    assert.match(issueFor({ ...own, model: 'has space' }, 'model'), /not a catalog model/);
  });
});

describe('parseJobSpecJson', () => {
  test('rejects oversized documents before parsing them', () => {
    const text = JSON.stringify({ ...valid, name: 'x'.repeat(MAX_JOB_SPEC_BYTES) });
    const result = parseJobSpecJson(text);
    assert.ok(!result.ok);
    assert.deepEqual(result.issues, [
      {
        field: '(document)',
        rule: `must be at most ${MAX_JOB_SPEC_BYTES} bytes, got ${Buffer.byteLength(text)}`,
      },
    ]);
  });

  test('rejects malformed JSON naming the document', () => {
    const result = parseJobSpecJson('{"model": ');
    assert.ok(!result.ok);
    assert.equal(result.issues[0]?.field, '(document)');
    assert.match(result.issues[0]?.rule ?? '', /must be JSON/);
  });
});

describe('jobSpecFingerprint', () => {
  test('ignores the client token and key order but not the content', () => {
    const a = validateJobSpec(valid);
    const b = validateJobSpec({
      ...Object.fromEntries(Object.entries(valid).reverse()),
      clientToken: 'other',
    });
    const c = validateJobSpec({ ...valid, gpus: 2 });
    assert.ok(a.ok && b.ok && c.ok);
    assert.equal(jobSpecFingerprint(a.document), jobSpecFingerprint(b.document));
    assert.notEqual(jobSpecFingerprint(a.document), jobSpecFingerprint(c.document));
  });
});
