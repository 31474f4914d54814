import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amzDate, signingKey, signRequest } from '../../../../lib/local/endpoint/sigv4.ts';

// The worked example of the AWS General Reference ("Signature Version 4 signing process",
// IAM ListUsers, 2015-08-30T12:36:00Z) with its published signing key and signature.
const example = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  region: 'us-east-1',
  service: 'iam',
  now: new Date('2015-08-30T12:36:00Z'),
};

test('derives the published signing key', () => {
  assert.equal(
    signingKey(example.credentials.secretAccessKey, '20150830', 'us-east-1', 'iam').toString('hex'),
    'c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9',
  );
});

test('produces the published signature for the IAM ListUsers example', () => {
  const headers = signRequest(
    {
      method: 'GET',
      url: new URL('https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08'),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: '',
    },
    example,
  );
  assert.equal(headers['x-amz-date'], '20150830T123600Z');
  assert.equal(
    headers.authorization,
    'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, ' +
      'SignedHeaders=content-type;host;x-amz-date, ' +
      'Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
  );
});

test('signs the session token and changes the signature with the body', () => {
  const request = { method: 'POST', url: new URL('http://127.0.0.1:4566/'), headers: {}, body: '{}' };
  const withToken = signRequest(request, {
    ...example,
    credentials: { ...example.credentials, sessionToken: 'tok' },
  });
  assert.equal(withToken['x-amz-security-token'], 'tok');
  assert.match(withToken.authorization ?? '', /SignedHeaders=host;x-amz-date;x-amz-security-token,/);
  const other = signRequest({ ...request, body: '{"a":1}' }, example);
  assert.notEqual(signRequest(request, example).authorization, other.authorization);
  assert.equal(amzDate(new Date('2024-01-02T03:04:05.678Z')), '20240102T030405Z');
});
