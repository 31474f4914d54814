// The fencing terms the control plane derives from its heartbeat timeout: fence + grace + margin = the timeout, so
// an agent out of contact has killed its workers before its host can be declared lost.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { desiredStateSchema } from '../../../lib/protocol/desired-state.ts';
import { fenceTermsFor } from '../../../lib/protocol/fence.ts';

test('terms for the default 300 s, the local cloud’s 30 s and a 6 s test timeout', () => {
  assert.deepEqual(fenceTermsFor(300), { afterSeconds: 240, graceSeconds: 30 });
  assert.deepEqual(fenceTermsFor(30), { afterSeconds: 24, graceSeconds: 3 });
  assert.deepEqual(fenceTermsFor(3600), { afterSeconds: 3540, graceSeconds: 30 }, 'grace and margin capped');
  for (const timeout of [1, 6, 30, 300, 900, 3600]) {
    const { afterSeconds, graceSeconds } = fenceTermsFor(timeout);
    const margin = timeout - afterSeconds - graceSeconds;
    assert.ok(afterSeconds > 0 && graceSeconds > 0, `${timeout}: positive terms`);
    assert.ok(margin >= Math.min(30, timeout * 0.1) - 1e-9, `${timeout}: a margin is left (${margin} s)`);
  }
});

test('the desired state carries them; documents without them still parse', () => {
  const base = { hostId: 'h', generation: 1, jobs: [] };
  assert.ok(desiredStateSchema.safeParse(base).success);
  assert.deepEqual(desiredStateSchema.parse({ ...base, fence: fenceTermsFor(300) }).fence, {
    afterSeconds: 240,
    graceSeconds: 30,
  });
  assert.equal(
    desiredStateSchema.safeParse({ ...base, fence: { afterSeconds: 0, graceSeconds: 1 } }).success,
    false,
  );
});
