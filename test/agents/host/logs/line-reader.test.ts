import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LineReader, MAX_LINE_BYTES } from '../../../../agents/host/logs/line-reader.ts';
import { tempDir } from '../helpers.ts';

test('lines with the offset after each; a partial line waits unless the writer exited', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'out');
    const reader = new LineReader(path, 0);
    assert.deepEqual(reader.read(false), [], 'file not created yet');
    writeFileSync(path, 'one\ntwo\npart');
    assert.deepEqual(reader.read(false), [
      { text: 'one', end: 4 },
      { text: 'two', end: 8 },
    ]);
    appendFileSync(path, 'ial\n€nd');
    assert.deepEqual(reader.read(false), [{ text: 'partial', end: 16 }]);
    assert.deepEqual(reader.read(true), [{ text: '€nd', end: 21 }]);
    assert.deepEqual(reader.read(true), []);
  } finally {
    dir.cleanup();
  }
});

test('resumes from a saved offset', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'out');
    writeFileSync(path, 'one\ntwo\nthree\n');
    assert.deepEqual(
      new LineReader(path, 4).read(false).map((l) => l.text),
      ['two', 'three'],
    );
  } finally {
    dir.cleanup();
  }
});

test('a line longer than the cap is cut into pieces without splitting a character', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'out');
    const long = `${'a'.repeat(MAX_LINE_BYTES - 1)}é${'b'.repeat(10)}`;
    writeFileSync(path, `${long}\n`);
    const lines = new LineReader(path, 0).read(false);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.text, 'a'.repeat(MAX_LINE_BYTES - 1));
    assert.equal(lines[1]!.text, `é${'b'.repeat(10)}`);
    assert.equal(lines.map((l) => l.text).join(''), long);
    assert.equal(lines[1]!.end, Buffer.byteLength(long) + 1);
  } finally {
    dir.cleanup();
  }
});

test('an exited writer’s backlog larger than one read: no line is cut where a read stops', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'out');
    const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i} ${'x'.repeat(60)}`); // about 2 MiB
    writeFileSync(path, `${lines.join('\n')}\nno newline at the end`);
    const reader = new LineReader(path, 0);
    const read: string[] = [];
    for (let batch = reader.read(true); batch.length > 0; batch = reader.read(true))
      read.push(...batch.map((l) => l.text));
    assert.deepEqual(read, [...lines, 'no newline at the end']);
  } finally {
    dir.cleanup();
  }
});
