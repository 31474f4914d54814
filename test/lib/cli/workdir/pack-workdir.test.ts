// Packing a working directory: the same tree gives the same bytes (so uploads are shared and skipped), `.git`
// stays home, and a missing, non-directory or too-large path is refused with a clear message.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { list } from 'tar';
import { packWorkdir } from '../../../../lib/cli/workdir/pack-workdir.ts';
import { WorkdirError } from '../../../../lib/cli/workdir/workdir-error.ts';

const root = mkdtempSync(join(tmpdir(), 'tessera-pack-'));
after(() => rmSync(root, { recursive: true, force: true }));

const project = (name: string) => {
  const dir = join(root, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, 'train.py'), 'print("train")\n');
  writeFileSync(join(dir, 'src', 'model.py'), 'MODEL = 1\n');
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(join(dir, 'empty'));
  symlinkSync('train.py', join(dir, 'main.py'));
  return dir;
};

const entries = async (file: string): Promise<string[]> => {
  const names: string[] = [];
  await list({ file, onReadEntry: (entry) => names.push(entry.path) });
  return names;
};

describe('packWorkdir', () => {
  test('same content, same archive: file times and creation order do not matter', async () => {
    const a = project('a');
    const b = project('b');
    utimesSync(join(b, 'train.py'), new Date('2020-05-05'), new Date('2020-05-05'));
    const first = await packWorkdir(a);
    const second = await packWorkdir(b);
    try {
      assert.match(first.sha256, /^[0-9a-f]{64}$/);
      assert.equal(second.sha256, first.sha256);
      assert.equal(first.files, 2);
      assert.equal(first.contentBytes, 'print("train")\n'.length + 'MODEL = 1\n'.length);
      assert.deepEqual(await entries(first.path), ['empty/', 'main.py', 'src/', 'src/model.py', 'train.py']);
    } finally {
      first.dispose();
      second.dispose();
    }
    writeFileSync(join(b, 'train.py'), 'print("changed")\n');
    const changed = await packWorkdir(b);
    changed.dispose();
    assert.notEqual(changed.sha256, first.sha256, 'a change of content is a new archive');
  });

  test('refuses a missing path, a file, and a tree over the limit', async () => {
    await assert.rejects(packWorkdir(join(root, 'nope'), { shownAs: './nope' }), (error: Error) => {
      assert.ok(error instanceof WorkdirError);
      assert.match(error.message, /^workdir \.\/nope: no such directory/);
      return true;
    });
    const file = join(root, 'file.txt');
    writeFileSync(file, 'x');
    await assert.rejects(packWorkdir(file), /not a directory/);
    await assert.rejects(
      packWorkdir(project('big'), { maxBytes: 10 }),
      /in 2 files is more than the 0\.0 MiB allowed/,
    );
  });
});
