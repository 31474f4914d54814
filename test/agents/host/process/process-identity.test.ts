import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { isSameProcessAlive, processStartTime } from '../../../../agents/host/process/process-identity.ts';

test('a live process is recognised by pid and start time; a dead one or another start time is not', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
  try {
    const pid = child.pid!;
    const startTime = processStartTime(pid);
    assert.ok(startTime, 'start time readable');
    assert.equal(isSameProcessAlive(pid, startTime), true);
    assert.equal(isSameProcessAlive(pid, null), true);
    assert.equal(isSameProcessAlive(pid, `${startTime}0`), false, 'pid reused by another process');
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  assert.equal(isSameProcessAlive(child.pid!, null), false);
  assert.equal(processStartTime(child.pid!), null);
});
