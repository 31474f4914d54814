import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, parseAgentConfig } from '../../../agents/host/config.ts';

describe('parseAgentConfig', () => {
  test('ec2 mode from the environment (systemd EnvironmentFile)', () => {
    const config = parseAgentConfig([], {
      TESSERA_AGENT_DESIRED_STATE: 'dynamodb:TesseraHosts',
      TESSERA_AGENT_DESIRED_KEY: 'arn:aws:ec2:us-east-1:123456789012:instance/i-0abc',
      TESSERA_AGENT_TELEMETRY: 'sqs:https://sqs.us-east-1.amazonaws.com/123456789012/telemetry',
      TESSERA_AGENT_MAX_CRASHES: '5',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:4566',
    });
    assert.equal(config.mode, 'ec2');
    assert.deepEqual(config.desiredState, {
      kind: 'dynamodb',
      table: 'TesseraHosts',
      keyAttribute: 'hostId',
      key: 'arn:aws:ec2:us-east-1:123456789012:instance/i-0abc',
      desiredAttribute: 'desired',
    });
    assert.deepEqual(config.telemetry, {
      kind: 'sqs',
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/telemetry',
    });
    assert.deepEqual(config.gpus, { kind: 'nvidia-smi', command: 'nvidia-smi' });
    assert.equal(config.imdsUrl, 'http://169.254.169.254');
    assert.equal(config.topology, 'ec2');
    assert.equal(config.address, null, 'from instance metadata at start');
    assert.equal(config.stateDir, '/var/lib/tessera-agent');
    assert.equal(config.timings.maxCrashes, 5);
    assert.equal(config.timings.pollIntervalMs, 2_000);
    assert.deepEqual(config.aws, { region: 'us-east-1', endpoint: 'http://127.0.0.1:4566' });
    assert.equal(config.containerRuntime, 'docker');
  });

  test('the container runtime for jobs with an image: flag, else variable, else docker', () => {
    const base = ['--mode', 'local', '--desired-state', 'file:/tmp/d.json'];
    const env = { TESSERA_AGENT_CONTAINER_RUNTIME: '/usr/bin/podman' };
    assert.equal(parseAgentConfig(base, env).containerRuntime, '/usr/bin/podman');
    assert.equal(
      parseAgentConfig([...base, '--container-runtime', 'nerdctl'], env).containerRuntime,
      'nerdctl',
    );
  });

  test('local mode defaults; flags win over the environment', () => {
    const config = parseAgentConfig(
      [
        '--mode',
        'local',
        '--host-id',
        'sim-1',
        '--desired-state',
        'file:/tmp/d.json',
        '--gpus',
        'sim:4xA100',
        '--poll-ms',
        '50',
        '--address',
        '127.0.0.5',
      ],
      { TESSERA_AGENT_POLL_MS: '9999', TESSERA_AGENT_GPUS: 'nvidia-smi', TESSERA_AGENT_ADDRESS: '10.0.0.9' },
    );
    assert.equal(config.mode, 'local');
    assert.equal(config.hostId, 'sim-1');
    assert.deepEqual(config.gpus, { kind: 'simulated', count: 4, type: 'A100' });
    assert.deepEqual(config.telemetry, { kind: 'stdout' });
    assert.equal(config.imdsUrl, null);
    assert.equal(config.topology, 'none');
    assert.equal(config.stateDir, '.tessera/agent-sim-1');
    assert.equal(config.timings.pollIntervalMs, 50);
    assert.equal(config.address, '127.0.0.5');
  });

  test('errors name the flag or variable and the rule', () => {
    const bad: [string[], Record<string, string>, RegExp][] = [
      [[], {}, /--desired-state \/ TESSERA_AGENT_DESIRED_STATE is required/],
      [
        ['--desired-state', 'dynamodb:T'],
        {},
        /--telemetry \/ TESSERA_AGENT_TELEMETRY is required in ec2 mode/,
      ],
      [
        ['--desired-state', 'redis:x'],
        {},
        /--desired-state: "redis:x" must be dynamodb:<table> or file:<path>/,
      ],
      [['--mode', 'k8s'], {}, /--mode \/ TESSERA_AGENT_MODE: "k8s" must be ec2 or local/],
      [
        ['--mode', 'local', '--desired-state', 'file:x', '--gpus', 'sim:fourxA100'],
        {},
        /--gpus: "sim:fourxA100" must be/,
      ],
      [
        ['--mode', 'local', '--desired-state', 'file:x'],
        { TESSERA_AGENT_TICK_MS: '0' },
        /TESSERA_AGENT_TICK_MS: "0" must be an integer ≥ 1/,
      ],
      [
        ['--mode', 'local', '--desired-state', 'file:x', '--telemetry', 'sqs:queue'],
        {},
        /must be sqs:<queue URL>/,
      ],
      [['--no-such-flag'], {}, /unknown option '--no-such-flag'/],
      [
        ['--mode', 'local', '--desired-state', 'file:x'],
        { TESSERA_AGENT_ADDRESS: 'tcp://10.0.0.1' },
        /TESSERA_AGENT_ADDRESS: "tcp:\/\/10.0.0.1" must be an IP address or host name/,
      ],
      [
        ['--mode', 'local', '--desired-state', 'file:x', '--logs', 'bucket'],
        {},
        /--logs: "bucket" must be s3:\/\/<bucket> or none/,
      ],
      [
        ['--mode', 'local', '--desired-state', 'file:x'],
        { TESSERA_AGENT_LOGS: 's3://b1', TESSERA_AGENT_LOG_FLUSH_SECONDS: '0' },
        /TESSERA_AGENT_LOG_FLUSH_SECONDS: "0" must be a number of seconds > 0/,
      ],
    ];
    for (const [argv, env, pattern] of bad) {
      assert.throws(
        () => parseAgentConfig(argv, env),
        (error: Error) => error instanceof ConfigError && pattern.test(error.message),
        argv.join(' '),
      );
    }
  });

  test('worker logs: none by default, or an S3 bucket with a flush interval', () => {
    const base = ['--mode', 'local', '--desired-state', 'file:x'];
    assert.deepEqual(parseAgentConfig(base, {}).logs, { kind: 'none' });
    assert.deepEqual(
      parseAgentConfig([...base, '--logs', 's3://tessera-bucket-1', '--log-flush-seconds', '0.5'], {}).logs,
      { kind: 's3', bucket: 'tessera-bucket-1', flushSeconds: 0.5 },
    );
    assert.deepEqual(parseAgentConfig(base, { TESSERA_AGENT_LOGS: 's3://b12/' }).logs, {
      kind: 's3',
      bucket: 'b12',
      flushSeconds: 5,
    });
  });
});
