#!/usr/bin/env node
// Runs Node's test runner on every *.test.ts under the given folders (default: test/), through tsx.
// Node 20's runner does not expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));

const collect = (path) => {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.name === 'node_modules' ? [] : collect(join(path, entry.name))));
};

const files = (roots.length > 0 ? roots : ['test']).flatMap(collect);
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ') || 'test'}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
