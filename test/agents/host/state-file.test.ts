import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readStateFile, writeStateFile } from '../../../agents/host/state-file.ts';
import { tempDir } from './helpers.ts';

test('written atomically and read back; missing, broken and invalid files are told apart', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'nested', 'agent-state.json');
    assert.deepEqual(readStateFile(path), { kind: 'missing' });
    const state = {
      version: 1 as const,
      hostId: 'h',
      savedAt: 5,
      reconciler: { appliedGeneration: 3, evacuation: null, jobs: [] },
      processes: [
        {
          ref: 'j/g1/a1/r0',
          pid: 4242,
          startTime: '123',
          stdoutPath: '/x.out',
          stderrPath: '/x.err',
          stdoutOffset: 10,
          stopRequested: false,
          killed: false,
        },
      ],
    };
    writeStateFile(path, state);
    assert.equal(existsSync(`${path}.tmp`), false);
    assert.deepEqual(readStateFile(path), { kind: 'ok', state });
    writeFileSync(path, '{');
    const broken = readStateFile(path);
    assert.ok(broken.kind === 'invalid' && broken.error.includes('not valid JSON'));
    writeFileSync(path, JSON.stringify({ ...state, processes: [{ ...state.processes[0], pid: -1 }] }));
    const invalid = readStateFile(path);
    assert.ok(
      invalid.kind === 'invalid' && invalid.error.includes('processes.0.pid'),
      JSON.stringify(invalid),
    );
  } finally {
    dir.cleanup();
  }
});
