import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readTrace } from '../../../lib/traces/read.ts';
import { TraceFormatError } from '../../../lib/traces/types.ts';
import { fixturePath } from './fixtures.ts';

describe('readTrace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-traces-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('reads a file, naming issues and the trace after its path', () => {
    const path = fixturePath('philly-malformed.csv');
    const trace = readTrace(path);
    assert.equal(trace.source, path);
    assert.equal(trace.name, 'philly-malformed');
    assert.equal(trace.issues[0]?.file, path);
    assert.equal(trace.jobs.length, 8);
  });

  test('reads a PAI trace from its directory or from either table', () => {
    for (const path of [
      fixturePath('pai'),
      fixturePath('pai/pai_job_table.csv'),
      fixturePath('pai/pai_task_table.csv'),
    ]) {
      const trace = readTrace(path);
      assert.equal(trace.format, 'alibaba-pai', path);
      assert.equal(trace.jobs.length, 3, path);
    }
  });

  test('a PAI table without its partner, or an unrelated directory, is a format error', () => {
    const lone = join(dir, 'lone');
    mkdirSync(lone);
    copyFileSync(fixturePath('pai/pai_job_table.csv'), join(lone, 'pai_job_table.csv'));
    assert.throws(
      () => readTrace(join(lone, 'pai_job_table.csv')),
      (e: Error) => e instanceof TraceFormatError && /pai_task_table\.csv: missing/.test(e.message),
    );
    assert.throws(
      () => readTrace(dir),
      (e: Error) => e instanceof TraceFormatError && /without pai_job_table\.csv/.test(e.message),
    );
    assert.throws(
      () => readTrace(fixturePath('pai'), { format: 'philly' }),
      /is a directory; only an alibaba-pai trace/,
    );
  });

  test('binary and empty files are format errors; unknown --format is rejected before reading', () => {
    const gz = join(dir, 'trace.csv.gz');
    writeFileSync(gz, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]));
    assert.throws(
      () => readTrace(gz),
      (e: Error) => e instanceof TraceFormatError && /binary/.test(e.message),
    );
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    assert.throws(() => readTrace(empty, { format: 'philly' }), /empty/);
    assert.throws(
      () => readTrace(join(dir, 'absent.csv'), { format: 'nope' }),
      /unknown trace format "nope"/,
    );
  });

  test('a path that is no file names itself and the builtin traces (a mistyped builtin looks like a path)', () => {
    assert.throws(
      () => readTrace(join(dir, 'absent.csv')),
      (e: Error) =>
        e instanceof TraceFormatError &&
        e.message.startsWith(
          `no trace file ${join(dir, 'absent.csv')}; builtin traces: philly | gavel:<jobs>:<rate>`,
        ),
    );
  });
});
