import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LocalSts } from '../../../../lib/local/endpoint/sts.ts';

const form = (params: Record<string, string>) =>
  new URLSearchParams({ Action: 'AssumeRole', ...params }).toString();
const assume = { RoleArn: 'arn:aws:iam::000000000000:role/data', RoleSessionName: 'i-0abc' };
const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

describe('LocalSts', () => {
  test('AssumeRole issues credentials it remembers, with the session policy and expiry', () => {
    let now = 1_000_000;
    const sts = new LocalSts('000000000000', () => now);
    const policy = '{"Statement":[]}';
    const reply = sts.handle(form({ ...assume, Policy: policy, DurationSeconds: '1800' }), 'test');
    assert.equal(reply.status, 200);
    const key = tag(reply.body, 'AccessKeyId')!;
    assert.match(key, /^ASIA[A-Z2-7]{16}$/);
    const session = sts.session(key)!;
    assert.equal(session.secretAccessKey, tag(reply.body, 'SecretAccessKey'));
    assert.equal(session.sessionToken, tag(reply.body, 'SessionToken'));
    assert.equal(session.policy, policy);
    assert.equal(session.expiresAtMs, 1_000_000 + 1_800_000);
    assert.equal(tag(reply.body, 'Expiration'), new Date(1_000_000 + 1_800_000).toISOString());
    now += 1;
    assert.equal(sts.now(), 1_000_001);
  });

  test('hosts and vended sessions may not assume roles', () => {
    const sts = new LocalSts('000000000000');
    const hostKey = 'LOCALHOST692D30616263';
    assert.match(sts.handle(form(assume), hostKey).body, /<Code>AccessDenied<\/Code>/);
    const vended = tag(sts.handle(form(assume), 'test').body, 'AccessKeyId')!;
    const chained = sts.handle(form(assume), vended);
    assert.equal(chained.status, 403);
    assert.match(chained.body, /AccessDenied/);
    assert.equal(sts.handle(form(assume), undefined).status, 403);
  });

  test('validation as AWS does it: policy size, session name, duration, action', () => {
    const sts = new LocalSts('000000000000');
    const code = (params: Record<string, string>, action?: string) =>
      tag(
        sts.handle(action ? new URLSearchParams({ Action: action }).toString() : form(params), 'test').body,
        'Code',
      );
    assert.equal(code({ ...assume, Policy: JSON.stringify({ x: 'y'.repeat(2100) }) }), 'ValidationError');
    assert.equal(code({ ...assume, Policy: '{not json' }), 'MalformedPolicyDocument');
    assert.equal(code({ ...assume, RoleSessionName: 'has space' }), 'ValidationError');
    assert.equal(code({ ...assume, DurationSeconds: '60' }), 'ValidationError');
    assert.equal(code({}, 'GetSessionToken'), 'InvalidAction');
  });
});
