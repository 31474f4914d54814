import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ReportTail } from '../../../../agents/host/process/report-tail.ts';
import { tempDir } from '../helpers.ts';

test('returns complete lines as the file grows and keeps a partial line for later', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'out');
    const tail = new ReportTail(path);
    assert.deepEqual(tail.readLines(), [], 'file not created yet');
    writeFileSync(path, 'one\ntw');
    assert.deepEqual(tail.readLines(), ['one']);
    assert.equal(tail.offset, 4);
    appendFileSync(path, 'o\nthree\n');
    assert.deepEqual(tail.readLines(), ['two', 'three']);
    appendFileSync(path, 'cut sho');
    assert.deepEqual(tail.readLines(), []);
    assert.equal(tail.takeRemainder(), 'cut sho');
    assert.equal(tail.takeRemainder(), null);
    tail.close();
  } finally {
    dir.cleanup();
  }
});

test('resumes from a saved offset, and multi-byte characters split across reads survive', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'out');
    writeFileSync(path, 'old line\n');
    const first = new ReportTail(path);
    first.readLines();
    const resumed = new ReportTail(path, first.offset);
    appendFileSync(path, Buffer.from('naïve ✓', 'utf8').subarray(0, 4));
    assert.deepEqual(resumed.readLines(), []);
    appendFileSync(path, Buffer.concat([Buffer.from('naïve ✓', 'utf8').subarray(4), Buffer.from('\n')]));
    assert.deepEqual(resumed.readLines(), ['naïve ✓']);
    first.close();
    resumed.close();
  } finally {
    dir.cleanup();
  }
});
