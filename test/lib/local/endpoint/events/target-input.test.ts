import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  readJsonPath,
  TargetInputError,
  targetInput,
  validateTargetInput,
} from '../../../../../lib/local/endpoint/events/target-input.ts';
import type { EventBridgeEvent } from '../../../../../lib/local/endpoint/events/types.ts';

const event: EventBridgeEvent = {
  version: '0',
  id: 'e-1',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '000000000000',
  time: '2030-01-01T00:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:000000000000:instance/i-1'],
  detail: { 'instance-id': 'i-1', state: 'running', gpus: [0, 1] },
};
const rule = { name: 'r', arn: 'arn:aws:events:us-east-1:000000000000:rule/r' };

test('a target without input settings receives the whole event', () => {
  assert.equal(targetInput({ Id: 't', Arn: 'arn:x' }, event, rule), event);
});

test('Input is constant JSON, InputPath selects part of the event', () => {
  assert.deepEqual(targetInput({ Id: 't', Arn: 'arn:x', Input: '{"round":true}' }, event, rule), {
    round: true,
  });
  assert.deepEqual(targetInput({ Id: 't', Arn: 'arn:x', InputPath: '$.detail' }, event, rule), event.detail);
  assert.equal(readJsonPath(event, '$.detail.gpus[1]'), 1);
  assert.equal(readJsonPath(event, '$.detail.absent.deeper'), undefined);
});

test('InputTransformer fills the template from paths and reserved variables', () => {
  const input = targetInput(
    {
      Id: 't',
      Arn: 'arn:x',
      InputTransformer: {
        InputPathsMap: { id: '$.detail.instance-id', gpus: '$.detail.gpus' },
        InputTemplate: '{"instance": "<id>", "gpus": <gpus>, "rule": "<aws.events.rule-name>"}',
      },
    },
    event,
    rule,
  );
  assert.deepEqual(input, { instance: 'i-1', gpus: [0, 1], rule: 'r' });
  const text = targetInput(
    {
      Id: 't',
      Arn: 'arn:x',
      InputTransformer: { InputPathsMap: { s: '$.detail.state' }, InputTemplate: 'instance is <s>' },
    },
    event,
    rule,
  );
  assert.equal(text, 'instance is running');
});

test('validation rejects bad JSON, bad paths and combined settings', () => {
  const bad = [
    { Id: 't', Arn: 'arn:x', Input: '{oops' },
    { Id: 't', Arn: 'arn:x', InputPath: 'detail.state' },
    { Id: 't', Arn: 'arn:x', Input: '{}', InputPath: '$.detail' },
    { Id: 't', Arn: 'arn:x', InputTransformer: { InputPathsMap: { a: '$..x' }, InputTemplate: '<a>' } },
  ];
  for (const target of bad)
    assert.throws(() => validateTargetInput(target), TargetInputError, JSON.stringify(target));
});
