// The agent speaks to the control plane only through lib/protocol (DESIGN.md §2): it imports nothing else of the
// repository, and the protocol imports nothing but itself and the core.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });

/** Repository-relative targets of every relative import in the files under `dir`. */
const relativeImports = (dir: string): { file: string; target: string }[] =>
  sourceFiles(join(ROOT, dir)).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => ({
      file: relative(ROOT, file),
      target: relative(ROOT, resolve(dirname(file), m[1]!)),
    }));
  });

describe('import boundaries', () => {
  test('agents/host imports only itself and lib/protocol', () => {
    const outside = relativeImports('agents/host').filter(
      ({ target }) => !target.startsWith('agents/host/') && !target.startsWith('lib/protocol/'),
    );
    assert.deepEqual(outside, []);
  });

  test('lib/protocol imports only itself and lib/core', () => {
    const outside = relativeImports('lib/protocol').filter(
      ({ target }) => !target.startsWith('lib/protocol/') && !target.startsWith('lib/core/'),
    );
    assert.deepEqual(outside, []);
  });

  test('the control plane reads the agent contracts from lib/protocol, never from agents/', () => {
    const intoAgents = ['lib/aws', 'functions', 'lib/infra']
      .flatMap(relativeImports)
      .filter(({ target }) => target.startsWith('agents/'));
    assert.deepEqual(intoAgents, []);
  });
});
