import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { senderHostId, senderMismatch } from '../../../../lib/aws/telemetry/sender.ts';

describe('telemetry sender', () => {
  test('an instance role session names its instance', () => {
    assert.equal(senderHostId('AROAEXAMPLEID123:i-0123456789abcdef0'), 'i-0123456789abcdef0');
    assert.equal(senderMismatch('AROAEXAMPLEID123:i-0abc', 'i-0abc'), undefined);
  });

  test('users, accounts and other hosts may not speak for a host', () => {
    for (const sender of ['AIDAEXAMPLE', '000000000000', '', undefined, 'AROAX:', 'arn:aws:iam::1:role/x'])
      assert.equal(senderHostId(sender), undefined, String(sender));
    assert.match(
      senderMismatch('AROAX:i-0bbb', 'i-0aaa') ?? '',
      /sender i-0bbb may not report for host i-0aaa/,
    );
    assert.match(senderMismatch('AIDAEXAMPLE', 'i-0aaa') ?? '', /not a host's role session/);
  });
});
