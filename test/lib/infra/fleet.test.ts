import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { resolveDataDir } from '../../../lib/data/data-dir.ts';
import { renderUserData } from '../../../lib/infra/fleet.ts';
import { PERF_DATA_ENTRIES, roundBundleCommands } from '../../../lib/infra/perf-data.ts';

describe('renderUserData', () => {
  test('fills every placeholder of the agent’s user-data template', () => {
    const template = readFileSync(new URL('../../../agents/host/user-data.sh', import.meta.url), 'utf8');
    const script = renderUserData(template, {
      AGENT_ASSET_S3_URI: 's3://b/agent',
      HOSTS_TABLE: 'Hosts',
      TELEMETRY_QUEUE_URL: 'https://sqs/q',
      AWS_REGION: 'eu-west-1',
      HOST_ARN_PREFIX: 'arn:aws:ec2:eu-west-1:1:instance/',
      LOGS_BUCKET: 'tessera-bucket',
    });
    assert.match(script, /TESSERA_AGENT_LOGS=s3:\/\/\$\{LOGS_BUCKET\}/);
    assert.match(script, /TESSERA_AGENT_DESIRED_KEY=\$\{HOST_ARN_PREFIX\}\$\{instance_id\}/);
    assert.ok(script.startsWith('#!/bin/bash\n'));
    assert.match(script, /HOSTS_TABLE='Hosts'/);
    assert.match(script, /TELEMETRY_QUEUE_URL='https:\/\/sqs\/q'/);
    assert.doesNotMatch(script, /@@[A-Z0-9_]+@@/);
  });

  test('refuses to leave a placeholder empty', () => {
    assert.throws(
      () => renderUserData('a=@@ONE@@ b=@@TWO@@', { ONE: '1' }),
      /no value for placeholder\(s\) TWO/,
    );
  });
});

describe('roundBundleCommands', () => {
  const dataDir = resolveDataDir();
  test('copies the solver binary and the performance tables when present', {
    skip: !existsSync(dataDir) && 'no shared data directory',
  }, () => {
    const commands = roundBundleCommands(dataDir, '/out dir');
    assert.match(commands[0] ?? '', /^cp '.*highs\.wasm' '\/out dir'\/$/);
    for (const entry of PERF_DATA_ENTRIES)
      assert.ok(
        commands.some((c) => c.includes(`/${entry}'`)),
        entry,
      );
    assert.ok(!commands.some((c) => c.includes('philly')), 'traces are not bundled');
  });

  test('without a data directory only the solver is copied (the round falls back to the analytic model)', () => {
    const commands = roundBundleCommands('/nonexistent/data', '/out');
    assert.equal(commands.length, 1);
  });
});
