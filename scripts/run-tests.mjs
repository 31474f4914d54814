#!/usr/bin/env node
// Runs Node's test runner on every *.test.ts under the given folders (default: test/), through tsx.
// Node 20's runner does not expand globs itself, so the files are listed here.
//
// Files run two (or one a core, if more) at a time: most of the slow ones spend their time waiting on servers,
// agents, rounds and heartbeats rather than computing, and Node's own default (cores − 1) runs them one by one on
// a 2-core machine. The slowest files start first, so no long file begins near the end and runs on alone.
// TESSERA_TEST_CONCURRENCY overrides the number. Flags for the runner (--test-name-pattern=…) switch to plain
// `node --test`, which keeps the concurrency but runs the files in path order.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/**
 * Files (or folders) known to take longest, longest first (measured on 2 cores). Everything else follows in path
 * order; a file missing from this list only costs time, never correctness.
 */
const SLOW_FIRST = [
  'test/agents/trainer/trainer.test.ts', // the Python trainer suite: ~30 PyTorch worker start-ups
  'test/e2e/local-cloud.test.ts', // `tessera local` end to end: heartbeat timeouts, jobs of tens of seconds
  'test/faults/faults.test.ts', // a 10,000-job burst through DynamoDB Local
  'test/agents/host/agent-python-s3.test.ts',
  'test/agents/host/agent-python-trainer.test.ts',
  'test/agents/host/agent-logical-size.test.ts',
  'test/browser/dashboard.test.ts',
  'test/faults/fence.test.ts',
  'test/bin/cli.test.ts',
  'test/lib/infra/tessera-stack.test.ts', // one synth of the whole stack with cdk-nag
  'test/integration/gang.test.ts',
  'test/integration/cdk-synth.test.ts',
  'test/bin/cli-usability.test.ts',
  'test/agents/host/agent-s3-checkpoints.test.ts',
  'test/lib/local/cloud/api-routes.test.ts',
  'test/integration/',
];

const roots = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));

const collect = (path) => {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.name === 'node_modules' ? [] : collect(join(path, entry.name))));
};

/** Position in SLOW_FIRST of the first entry naming the file or a folder above it; the rest after, in path order. */
const rank = (file) => {
  const normal = file.split('\\').join('/').replace(/^\.\//, '');
  const at = SLOW_FIRST.findIndex(
    (entry) => normal === entry || (entry.endsWith('/') && normal.startsWith(entry)),
  );
  return at === -1 ? SLOW_FIRST.length : at;
};

const found = (roots.length > 0 ? roots : ['test']).flatMap(collect);
if (found.length === 0) {
  console.error(`no test files under ${roots.join(', ') || 'test'}`);
  process.exit(1);
}
const files = found
  .map((file, index) => ({ file, index }))
  .sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index);

const concurrency = Number(process.env.TESSERA_TEST_CONCURRENCY) || Math.max(2, availableParallelism());
const paths = files.map((f) => f.file);
// Flags for Node's runner (e.g. --test-name-pattern=…) go to plain `node --test`, which runs the files in path order.
const args =
  flags.length > 0
    ? ['--test', `--test-concurrency=${concurrency}`, ...flags, ...paths]
    : [join(import.meta.dirname, 'run-test-files.mjs'), ...paths];
const result = spawnSync(process.execPath, ['--import', 'tsx', ...args], {
  stdio: 'inherit',
  env: { ...process.env, TESSERA_TEST_CONCURRENCY: String(concurrency) },
});
process.exit(result.status ?? 1);
