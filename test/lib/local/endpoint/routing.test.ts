import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isServedService, routeRequest } from '../../../../lib/local/endpoint/routing.ts';

const auth = (service: string) =>
  `AWS4-HMAC-SHA256 Credential=AKID/20240102/us-east-1/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc`;

describe('routeRequest', () => {
  test('takes the service from the SigV4 credential scope', () => {
    for (const service of ['dynamodb', 'sqs', 'ec2', 'events', 's3']) {
      assert.deepEqual(routeRequest({ authorization: auth(service) }, '/'), { service, via: 'sigv4-header' });
    }
  });

  test('prefers the credential scope over X-Amz-Target', () => {
    assert.equal(
      routeRequest({ authorization: auth('sqs'), 'x-amz-target': 'AWSEvents.PutRule' }, '/')?.service,
      'sqs',
    );
  });

  test('reads presigned URLs (X-Amz-Credential in the query string)', () => {
    const url = `/?Action=DescribeInstances&X-Amz-Credential=${encodeURIComponent('AKID/20240102/us-east-1/ec2/aws4_request')}`;
    assert.deepEqual(routeRequest({}, url), { service: 'ec2', via: 'sigv4-query' });
  });

  test('falls back to the X-Amz-Target prefix', () => {
    const cases: [string, string][] = [
      ['DynamoDB_20120810.PutItem', 'dynamodb'],
      ['DynamoDBStreams_20120810.GetRecords', 'dynamodb'],
      ['AmazonSQS.SendMessage', 'sqs'],
      ['AWSEvents.PutEvents', 'events'],
      ['AWSStepFunctions.StartExecution', 'AWSStepFunctions'],
    ];
    for (const [target, service] of cases) {
      assert.deepEqual(routeRequest({ 'x-amz-target': target }, '/'), { service, via: 'x-amz-target' });
    }
  });

  test('ignores malformed authorization and reports nothing when nothing identifies the service', () => {
    assert.equal(routeRequest({ authorization: 'Bearer token' }, '/'), undefined);
    assert.equal(routeRequest({}, '/?Action=RunInstances'), undefined);
  });

  test('isServedService accepts exactly the five served services', () => {
    assert.deepEqual(['dynamodb', 'sqs', 'ec2', 'events', 's3', 'lambda'].filter(isServedService), [
      'dynamodb',
      'sqs',
      'ec2',
      'events',
      's3',
    ]);
  });
});
