import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  DesiredStateFormatError,
  FileDesiredStateSource,
  InMemoryDesiredStateSource,
} from '../../../../agents/host/ports/desired-state-source.ts';
import { tempDir } from '../helpers.ts';

test('file source: missing file is null, JSON is returned as is, broken JSON names the file', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'desired.json');
    const source = new FileDesiredStateSource(path);
    assert.equal(await source.read(), null);
    writeFileSync(path, '{"hostId":"h","generation":2,"workers":[]}');
    assert.deepEqual(await source.read(), { hostId: 'h', generation: 2, workers: [] });
    writeFileSync(path, '{"hostId":');
    await assert.rejects(
      source.read(),
      (error: Error) =>
        error instanceof DesiredStateFormatError && error.message.startsWith(`${path}: not valid JSON`),
    );
  } finally {
    dir.cleanup();
  }
});

test('in-memory source hands out copies', async () => {
  const source = new InMemoryDesiredStateSource();
  assert.equal(await source.read(), null);
  const document = { generation: 1 };
  source.set(document);
  document.generation = 99;
  const read = (await source.read()) as { generation: number };
  assert.equal(read.generation, 1);
  read.generation = 5;
  assert.deepEqual(await source.read(), { generation: 1 });
});
