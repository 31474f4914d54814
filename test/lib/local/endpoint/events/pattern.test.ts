import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileEventPattern, EventPatternError } from '../../../../../lib/local/endpoint/events/pattern.ts';

const ec2Event = {
  source: 'aws.ec2',
  'detail-type': 'EC2 Instance State-change Notification',
  resources: ['arn:aws:ec2:us-east-1:000000000000:instance/i-1'],
  detail: { 'instance-id': 'i-1', state: 'running', gpus: 8, ip: '10.0.1.7', tags: ['a', 'b'] },
};

const matches = (pattern: unknown, event: unknown = ec2Event) => compileEventPattern(pattern)(event);

describe('EventBridge event patterns', () => {
  test('exact values, nested fields, and arrays in the event (any element)', () => {
    assert.ok(matches({ source: ['aws.ec2'], detail: { state: ['pending', 'running'] } }));
    assert.ok(!matches({ source: ['aws.ec2'], detail: { state: ['terminated'] } }));
    assert.ok(matches({ resources: ['arn:aws:ec2:us-east-1:000000000000:instance/i-1'] }));
    assert.ok(matches({ detail: { tags: ['b'] } }));
    assert.ok(matches({ detail: { gpus: [8] } }));
    assert.ok(!matches({ detail: { gpus: ['8'] } }), 'types must agree');
    assert.ok(!matches({ detail: { missing: ['x'] } }));
    assert.ok(matches({ detail: { nullable: [null] } }, { detail: { nullable: null } }));
  });

  test('content filters', () => {
    assert.ok(matches({ 'detail-type': [{ prefix: 'EC2 Instance' }] }));
    assert.ok(matches({ 'detail-type': [{ suffix: 'Notification' }] }));
    assert.ok(matches({ source: [{ prefix: { 'equals-ignore-case': 'AWS.' } }] }));
    assert.ok(matches({ source: [{ 'equals-ignore-case': 'AWS.EC2' }] }));
    assert.ok(matches({ detail: { state: [{ 'anything-but': ['terminated', 'stopped'] }] } }));
    assert.ok(!matches({ detail: { state: [{ 'anything-but': 'running' }] } }));
    assert.ok(!matches({ detail: { state: [{ 'anything-but': { prefix: 'run' } }] } }));
    assert.ok(!matches({ detail: { missing: [{ 'anything-but': 'x' }] } }), 'anything-but needs the field');
    assert.ok(matches({ detail: { gpus: [{ numeric: ['>', 4, '<=', 8] }] } }));
    assert.ok(!matches({ detail: { gpus: [{ numeric: ['<', 8] }] } }));
    assert.ok(matches({ detail: { state: [{ exists: true }], missing: [{ exists: false }] } }));
    assert.ok(!matches({ detail: { state: [{ exists: false }] } }));
    assert.ok(matches({ detail: { 'instance-id': [{ wildcard: 'i-*' }] } }));
    assert.ok(matches({ detail: { ip: [{ cidr: '10.0.0.0/16' }] } }));
    assert.ok(!matches({ detail: { ip: [{ cidr: '10.1.0.0/16' }] } }));
  });

  test('$or combines alternatives', () => {
    const pattern = {
      source: ['aws.ec2'],
      $or: [{ detail: { state: ['terminated'] } }, { detail: { gpus: [{ numeric: ['>=', 8] }] } }],
    };
    assert.ok(matches(pattern));
    assert.ok(!matches(pattern, { ...ec2Event, detail: { state: 'running', gpus: 1 } }));
  });

  test('accepts the JSON text form and rejects invalid patterns with the path', () => {
    assert.ok(compileEventPattern('{"source":["aws.ec2"]}')(ec2Event));
    const invalid: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      [['aws.ec2'], /must be a JSON object/],
      [{ source: 'aws.ec2' }, /at source: each field must map/],
      [{ source: [] }, /at source: a list of matchers must not be empty/],
      [{ detail: { state: [{ bogus: 1 }] } }, /at detail\.state\[0\]: unknown content filter 'bogus'/],
      [{ detail: { n: [{ numeric: ['>'] }] } }, /numeric takes operator\/number pairs/],
      [{ $or: [{ a: ['b'] }] }, /\$or takes an array of at least two patterns/],
      [{ ip: [{ cidr: '10.0.0.0/40' }] }, /cidr takes an IPv4 block/],
    ];
    for (const [pattern, message] of invalid) {
      assert.throws(
        () => compileEventPattern(pattern),
        (e: Error) => e instanceof EventPatternError && message.test(e.message),
      );
    }
  });
});
