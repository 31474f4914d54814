// The CLI as a new user meets it: the version, and output piped into a reader that stops early.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { clusterPresets } from '../../lib/clusters/load.ts';
import { policyNames } from '../../lib/core/policies.ts';
import { TRACE_FORMATS } from '../../lib/traces/types.ts';
import { ownLocalCloud } from '../support/local-cloud-args.ts';

const CLI = join(import.meta.dirname, '../../bin/tessera-cli.mjs');
const PACKAGE = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));

describe('tessera --version', () => {
  test('prints the package version and exits 0', () => {
    for (const flag of ['--version', '-V']) {
      const run = spawnSync(process.execPath, [CLI, flag], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout.trim(), PACKAGE.version);
    }
  });
});

describe('output piped into a reader that closes early (| head)', () => {
  test('exits quietly with 0 instead of crashing on EPIPE', async () => {
    // A reader that has gone before the CLI writes: the simulator writes its JSON lines after the run.
    const child = spawn(
      process.execPath,
      [CLI, 'sim', '--trace', 'gavel:30:30', '--cluster', 'tesserae-32', '--policy', 'fifo,srtf', '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    assert.doesNotMatch(stderr, /EPIPE|Unhandled 'error' event/);
    assert.equal(status, 0, stderr);
  });
});

describe('tessera submit with a file it cannot read', () => {
  test('names the file and why, exit 1, before needing an endpoint', () => {
    const missing = join(import.meta.dirname, 'no-such-job.yaml');
    const run = spawnSync(process.execPath, [CLI, 'submit', missing], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TESSERA_ENDPOINT: '' },
    });
    assert.equal(run.status, 1);
    assert.equal(run.stderr.trim(), `tessera: cannot read the job file ${missing}: no such file`);
  });
});

describe('tessera sim: the summary table explains its columns', () => {
  test('a legend under the table says what LB, queue, util and the others are', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, 'sim', '--trace', 'gavel:20:30', '--cluster', 'tesserae-32', '--policy', 'fifo'],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^fifo +20 +20 /m);
    assert.match(run.stdout, /LB: mean JCT each job would have alone on its best\nallocation/);
  });
});

describe('a command name that does not exist but names what another does', () => {
  test('points at that command, exit 1', () => {
    const run = spawnSync(process.execPath, [CLI, 'queue'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^tessera: no command 'queue': `tessera jobs` lists your jobs/);
  });
});

describe('tessera submit --json: every failure is one JSON object on stdout (docs/cli.md)', () => {
  test('a file it cannot read: {error, message} on stdout, nothing on stderr, exit 1', () => {
    const missing = join(import.meta.dirname, 'no-such-job.yaml');
    const run = spawnSync(process.execPath, [CLI, 'submit', missing, '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, TESSERA_ENDPOINT: '' },
    });
    assert.equal(run.status, 1);
    assert.equal(run.stderr, '');
    assert.deepEqual(JSON.parse(run.stdout), {
      error: 'UnreadableJobFile',
      message: `cannot read the job file ${missing}: no such file`,
    });
  });

  test('a spec the schema rejects: {error, message, issues}, exit 2', () => {
    const run = spawnSync(process.execPath, [CLI, 'submit', '-', '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
      input: 'name: x\nmodel: resnet50\nbatchSize: 64\ngpus: 2\niterations: 10\n',
      env: { ...process.env, TESSERA_ENDPOINT: '' },
    });
    assert.equal(run.status, 2);
    const error = JSON.parse(run.stdout);
    assert.equal(error.error, 'InvalidJobSpec');
    assert.equal(error.message, '-: 1 problem(s), nothing submitted');
    assert.deepEqual(error.issues, [{ field: 'command', rule: 'is required', job: 'job' }]);
  });
});

describe('tessera local --help', () => {
  test('shows the default GPU types as the comma-separated list the option takes', () => {
    const run = spawnSync(process.execPath, [CLI, 'local', '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout.replace(/\s+/g, ' '),
      /--gpu-types <types> GPU types the fleet may launch \(comma-separated\) \(default: A10G,T4\)/,
    );
  });
});

describe('tessera sim --help', () => {
  test('names every policy, cluster preset and trace format it accepts', () => {
    const run = spawnSync(process.execPath, [CLI, 'sim', '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const help = run.stdout.replace(/\s+/g, ' ');
    const listed = (flag: string, names: readonly string[]) => {
      const text = help.slice(help.indexOf(flag), help.indexOf(' --', help.indexOf(flag) + flag.length));
      for (const name of names)
        assert.match(text, new RegExp(`[ :(]${name}[,)]?( |$)`), `${flag} lists ${name}`);
    };
    listed('--policy <names>', policyNames());
    listed('--cluster <preset|file>', clusterPresets());
    listed('--format <format>', TRACE_FORMATS);
  });
});

describe('tessera sim --demo with options it would ignore', () => {
  test('names them and says how to make your own run, exit 1, instead of silently running the fixed demo', () => {
    const run = spawnSync(process.execPath, [CLI, 'sim', '--demo', '--policy', 'fifo', '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr.trim(),
      'tessera: --demo is one fixed run and takes no other option (got --policy, --json); for your own run drop --demo and give --trace, --cluster, --policy',
    );
  });
});

describe('tessera local --hosts 0', () => {
  test('is refused before anything starts: a fleet of no instance could never run a job', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'tessera-hosts-0-'));
    try {
      const run = spawnSync(
        process.execPath,
        [CLI, 'local', '--hosts', '0', ...ownLocalCloud(stateDir), '--no-demo'],
        // Were it accepted, the local cloud would start: the timeout's SIGTERM stops it.
        { encoding: 'utf8', timeout: 30_000 },
      );
      assert.equal(run.status, 1, run.stderr);
      assert.match(
        run.stderr,
        /^tessera: error: option '--hosts <n>' argument '0' is invalid\. expected a whole number > 0/,
      );
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
