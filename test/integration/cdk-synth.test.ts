// `npx cdk synth` as a user runs it on a fresh clone: offline (no credentials, every HTTP request sent to a dead
// proxy), bundling every function with the local esbuild, cdk-nag on.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { resolveDataDir } from '../../lib/data/data-dir.ts';

const root = new URL('../..', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'tessera-synth-'));
after(() => rmSync(out, { recursive: true, force: true }));

const synth = () =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    for (const name of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_ENDPOINT_URL',
    ])
      delete env[name];
    const child = spawn('npx', ['cdk', 'synth', '--quiet', '-o', out], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

describe('npx cdk synth', () => {
  test('succeeds offline with every cdk-nag finding either compliant or suppressed with a reason', {
    timeout: 120_000,
  }, async () => {
    const { code, output } = await synth();
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /AwsSolutions-\w+\[?.*\]?: /, 'no unsuppressed nag findings printed');
    const report = readFileSync(join(out, 'AwsSolutions--Tessera-NagReport.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    const rows = report.map((line) => line.split('","').map((cell) => cell.replace(/^"|"$/g, '')));
    assert.ok(rows.length > 50);
    for (const [rule, resource, compliance, reason] of rows) {
      assert.ok(
        compliance === 'Compliant' || compliance === 'Suppressed' || compliance === 'N/A',
        `${rule} on ${resource}: ${compliance}`,
      );
      if (compliance === 'Suppressed')
        assert.ok((reason ?? '').length > 20, `${rule} on ${resource} suppressed without a reason`);
    }
    const template = JSON.parse(readFileSync(join(out, 'Tessera.template.json'), 'utf8'));
    assert.ok(Object.keys(template.Resources).length > 80);

    // The bundles: five ES module handlers; the round's carries the solver and the performance tables.
    const assets = readdirSync(out)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => join(out, name));
    const handlers = assets.filter((dir) => existsSync(join(dir, 'index.mjs')));
    assert.equal(handlers.length, 5);
    const roundBundle = handlers.filter((dir) => existsSync(join(dir, 'highs.wasm')));
    assert.equal(roundBundle.length, 1);
    if (existsSync(resolveDataDir())) {
      assert.ok(existsSync(join(roundBundle[0]!, 'data', 'gavel', 'simulation_throughputs.json')));
      assert.ok(existsSync(join(roundBundle[0]!, 'data', 'pollux')));
    }
    assert.ok(
      assets.some(
        (dir) => existsSync(join(dir, 'agent.mjs')) && existsSync(join(dir, 'tessera-agent.service')),
      ),
      'the agent bundle',
    );

    // Each bundle loads as Lambda would load it (the AWS SDK, which the runtime provides, from node_modules).
    symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'));
    for (const dir of handlers) {
      const loaded = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('./index.mjs'); if (typeof m.handler !== 'function') process.exit(3);",
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      assert.equal(loaded.status, 0, `${dir}: ${loaded.stderr}`);
    }
  });
});
