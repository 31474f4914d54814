// The CDK app (`npx cdk synth`/`deploy`) with a bad setting: the rule, not a stack trace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const APP = join(import.meta.dirname, '../../bin/tessera.ts');

describe('bin/tessera.ts (the CDK app)', () => {
  test('a bad -c tessera:… value names the key and the rule, exit 1, no stack trace', () => {
    const out = mkdtempSync(join(tmpdir(), 'tessera-cdk-'));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', APP], {
        encoding: 'utf8',
        timeout: 120_000,
        // what `cdk synth -c tessera:capacityType=spto` hands the app
        env: {
          ...process.env,
          CDK_OUTDIR: out,
          CDK_CONTEXT_JSON: JSON.stringify({ 'tessera:capacityType': 'spto' }),
        },
      });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /^invalid Tessera settings \(CDK context\):\n/);
      assert.match(run.stderr, /tessera:capacityType: must be spot or on-demand/);
      assert.doesNotMatch(run.stderr, /^\s+at /m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
