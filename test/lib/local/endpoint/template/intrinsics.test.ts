// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these are CloudFormation Fn::Sub strings, not JS templates
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  NO_VALUE,
  type ResolveContext,
  referencedLogicalIds,
  resolveValue,
  UnresolvableError,
} from '../../../../../lib/local/endpoint/template/intrinsics.ts';

const ctx: ResolveContext = {
  region: 'us-east-1',
  accountId: '000000000000',
  stackName: 'Tessera',
  ref: (id) => ({ Queue: 'http://127.0.0.1:4566/000000000000/q', Table: 'jobs' })[id],
  getAtt: (id, attribute) =>
    id === 'Queue' && attribute === 'Arn' ? 'arn:aws:sqs:us-east-1:000000000000:q' : undefined,
  parameter: (name) => ({ Interval: '5', Zones: ['a', 'b'] })[name],
  condition: (name) => name === 'IsLocal',
};

describe('CloudFormation intrinsics', () => {
  test('Ref resolves pseudo parameters, parameters and resources', () => {
    assert.equal(resolveValue({ Ref: 'AWS::Region' }, ctx), 'us-east-1');
    assert.equal(resolveValue({ Ref: 'AWS::StackName' }, ctx), 'Tessera');
    assert.equal(resolveValue({ Ref: 'Interval' }, ctx), '5');
    assert.equal(resolveValue({ Ref: 'Table' }, ctx), 'jobs');
    assert.equal(resolveValue({ Ref: 'AWS::NoValue' }, ctx), NO_VALUE);
  });

  test('GetAtt in both spellings; Join, Sub, Select, Split, If, Base64, GetAZs', () => {
    assert.equal(
      resolveValue({ 'Fn::GetAtt': ['Queue', 'Arn'] }, ctx),
      'arn:aws:sqs:us-east-1:000000000000:q',
    );
    assert.equal(resolveValue({ 'Fn::GetAtt': 'Queue.Arn' }, ctx), 'arn:aws:sqs:us-east-1:000000000000:q');
    assert.equal(
      resolveValue({ 'Fn::Join': ['', ['rate(', { Ref: 'Interval' }, ' minutes)']] }, ctx),
      'rate(5 minutes)',
    );
    assert.equal(
      resolveValue({ 'Fn::Sub': '${AWS::StackName}-${Table}-${Queue.Arn}-${!Literal}' }, ctx),
      'Tessera-jobs-arn:aws:sqs:us-east-1:000000000000:q-${Literal}',
    );
    assert.equal(resolveValue({ 'Fn::Sub': ['${Name}-x', { Name: { Ref: 'Table' } }] }, ctx), 'jobs-x');
    assert.equal(resolveValue({ 'Fn::Select': [1, { Ref: 'Zones' }] }, ctx), 'b');
    assert.deepEqual(resolveValue({ 'Fn::Split': [',', 'a,b'] }, ctx), ['a', 'b']);
    assert.equal(resolveValue({ 'Fn::If': ['IsLocal', 'yes', 'no'] }, ctx), 'yes');
    assert.equal(resolveValue({ 'Fn::Base64': 'hi' }, ctx), 'aGk=');
    assert.deepEqual(resolveValue({ 'Fn::GetAZs': '' }, ctx), ['us-east-1a', 'us-east-1b', 'us-east-1c']);
  });

  test('AWS::NoValue removes the property or list element', () => {
    assert.deepEqual(
      resolveValue(
        { A: 1, B: { 'Fn::If': ['IsProd', 2, { Ref: 'AWS::NoValue' }] }, C: [1, { Ref: 'AWS::NoValue' }] },
        ctx,
      ),
      { A: 1, C: [1] },
    );
  });

  test('anything without a local value is Unresolvable, naming it', () => {
    const cases: [unknown, RegExp][] = [
      [{ Ref: 'Bucket' }, /Ref Bucket has no local value/],
      [{ 'Fn::GetAtt': ['Queue', 'QueueName'] }, /Fn::GetAtt Queue\.QueueName/],
      [{ 'Fn::ImportValue': 'x' }, /Fn::ImportValue is not supported locally/],
      [{ 'Fn::Select': [5, ['a']] }, /index out of range/],
      [{ 'Fn::Sub': '${Bucket}' }, /Ref Bucket/],
    ];
    for (const [value, message] of cases) {
      assert.throws(
        () => resolveValue(value, ctx),
        (e: Error) => e instanceof UnresolvableError && message.test(e.message),
      );
    }
  });

  test('referencedLogicalIds finds Ref, GetAtt and Sub references, not pseudo parameters or Sub variables', () => {
    const refs = referencedLogicalIds({
      a: { Ref: 'Table' },
      b: [{ 'Fn::GetAtt': ['Dlq', 'Arn'] }, { 'Fn::GetAtt': 'Key.Arn' }],
      c: { 'Fn::Sub': ['${AWS::Region}-${Bucket.Arn}-${Var}-${!Lit}', { Var: { Ref: 'Topic' } }] },
      d: { Ref: 'AWS::AccountId' },
    });
    assert.deepEqual([...refs].sort(), ['Bucket', 'Dlq', 'Key', 'Table', 'Topic']);
  });
});
