import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { policyAllows } from '../../../../lib/local/endpoint/iam-policy.ts';

const policy = {
  Statement: [
    { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: ['arn:aws:s3:::b/jobs/a/*'] },
    {
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: 'arn:aws:s3:::b',
      Condition: { StringLike: { 's3:prefix': ['jobs/a/*'] } },
    },
    { Effect: 'Deny', Action: 's3:*', Resource: 'arn:aws:s3:::b/jobs/a/secret' },
  ],
};

describe('policyAllows', () => {
  test('allows matching action and resource; actions compare case-insensitively', () => {
    assert.equal(
      policyAllows(policy, { action: 's3:GetObject', resource: 'arn:aws:s3:::b/jobs/a/x/y' }),
      true,
    );
    assert.equal(policyAllows(policy, { action: 'S3:getobject', resource: 'arn:aws:s3:::b/jobs/a/x' }), true);
  });

  test('denies other resources, other actions, and explicit Deny', () => {
    assert.equal(
      policyAllows(policy, { action: 's3:GetObject', resource: 'arn:aws:s3:::b/jobs/ab/x' }),
      false,
    );
    assert.equal(
      policyAllows(policy, { action: 's3:DeleteObject', resource: 'arn:aws:s3:::b/jobs/a/x' }),
      false,
    );
    assert.equal(
      policyAllows(policy, { action: 's3:GetObject', resource: 'arn:aws:s3:::b/jobs/a/secret' }),
      false,
    );
  });

  test('conditions: a prefix inside matches, outside or missing does not', () => {
    const list = (prefix?: string) =>
      policyAllows(JSON.stringify(policy), {
        action: 's3:ListBucket',
        resource: 'arn:aws:s3:::b',
        ...(prefix === undefined ? {} : { context: { 's3:prefix': prefix } }),
      });
    assert.equal(list('jobs/a/checkpoints/'), true);
    assert.equal(list('jobs/a/'), true);
    assert.equal(list('jobs/'), false);
    assert.equal(list('jobs/b/'), false);
    assert.equal(list(), false, 'listing without a prefix is the whole bucket');
  });

  test('an unknown condition operator fails closed', () => {
    const odd = {
      Statement: [
        { Effect: 'Allow', Action: '*', Resource: '*', Condition: { NumericLessThan: { 'x:y': '1' } } },
      ],
    };
    assert.equal(
      policyAllows(odd, { action: 's3:GetObject', resource: 'r', context: { 'x:y': '0' } }),
      false,
    );
  });
});
