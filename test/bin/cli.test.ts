import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const CLI = join(import.meta.dirname, '../../bin/tessera-cli.mjs');
const tessera = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000 });

const SIM_FIELDS = [
  'policy',
  'cluster',
  'trace',
  'jobs',
  'completed',
  'avgJct',
  'p50Jct',
  'p95Jct',
  'p99Jct',
  'makespan',
  'avgQueueing',
  'gpuUtilization',
  'migrations',
  'restarts',
  'jctLowerBound',
  'wallSeconds',
];

describe('tessera sim (end to end through the real trace, perf model and simulator)', () => {
  test("Tiresias tf_job.csv: the 12-GPU job alone on the trace's 4-GPU hosts takes its 20 s; --reference-host-gpus overrides", () => {
    const tfJob = join(import.meta.dirname, '../fixtures/traces/tiresias-tf_job.csv');
    const simFifo = (...extra: string[]) =>
      tessera('sim', '--trace', tfJob, '--cluster', 'tiresias-n32g4', '--policy', 'fifo', ...extra);
    const avgJct = (...extra: string[]): number => {
      const run = simFifo('--json', ...extra);
      assert.equal(run.status, 0, run.stderr);
      return JSON.parse(run.stdout.trim()).avgJct;
    };
    const own = avgJct();
    assert.ok(
      Math.abs(own / 20 - 1) <= 0.1,
      `JCT ${own} s vs the trace's 20 s (±5 % and the executor's noise)`,
    );
    const oneMachine = avgJct('--reference-host-gpus', '12');
    assert.ok(oneMachine > 5 * own, `converted on one 12-GPU machine: ${oneMachine} s on 4-GPU hosts`);
    const zero = simFifo('--reference-host-gpus', '0');
    assert.notEqual(zero.status, 0);
    assert.match(zero.stderr, /reference-host-gpus/);
  });

  test('prints one JSON line per policy with the DESIGN §6 fields, and avg JCT ≥ its lower bound', () => {
    const run = tessera(
      'sim',
      '--trace',
      'philly',
      '--cluster',
      'crius-testbed-64',
      '--skip-days',
      '49',
      '--days',
      '0.25',
      '--policy',
      'fifo,yarn-cs,tiresias,gandiva,srtf',
      '--json',
    );
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.policy),
      ['fifo', 'yarn-cs', 'tiresias', 'gandiva', 'srtf'],
    );
    for (const line of lines) {
      for (const field of SIM_FIELDS) assert.ok(field in line, `${line.policy}: missing ${field}`);
      assert.equal(line.cluster, 'crius-testbed-64');
      assert.ok(line.jobs > 50, `${line.jobs} jobs`);
      assert.equal(line.completed + line.unschedulable + line.unfinished, line.jobs);
      assert.ok(line.avgJct >= line.jctLowerBound, `${line.policy}: ${line.avgJct} < ${line.jctLowerBound}`);
      assert.ok(line.gpuUtilization > 0 && line.gpuUtilization <= 1);
    }
    assert.match(run.stderr, /simulating \d+ jobs of philly on crius-testbed-64 \(64 GPUs\)/);
  });

  test('a jobs file with models outside the catalog compares policies on them', () => {
    const example = join(import.meta.dirname, '../../docs/examples/own-models.yaml');
    const run = tessera(
      'sim',
      '--trace',
      example,
      '--cluster',
      'tesserae-32',
      '--policy',
      'tessera,fifo',
      '--json',
    );
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.policy, l.jobs, l.completed]),
      [
        ['tessera', 5, 5],
        ['fifo', 5, 5],
      ],
    );
    assert.doesNotMatch(run.stderr, /left out/);
  });

  test('names each job a policy did not complete, and why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-sim-'));
    try {
      const jobs = join(dir, 'jobs.yaml');
      const job = (id: string, gpus: number) =>
        `  - { id: ${id}, model: resnet50, submitTime: 0, batchSize: 32, gpus: ${gpus}, iterations: 1000 }`;
      // tesserae-32 has 32 GPUs: the 64-GPU job can never run.
      writeFileSync(jobs, ['jobs:', job('fits', 4), job('too-big', 64), ''].join('\n'));
      const run = tessera('sim', '--trace', jobs, '--cluster', 'tesserae-32', '--policy', 'fifo,srtf');
      assert.equal(run.status, 0, run.stderr);
      assert.match(
        run.stdout,
        /^jobs not completed:\n {2}too-big \(resnet50, 64 GPUs\): unschedulable: needs 64 GPUs[^\n]* \(every policy\)$/m,
      );
      assert.doesNotMatch(run.stdout, /^ {2}fits /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('writes the HTML and CSV report with --report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-report-'));
    try {
      const run = tessera(
        'sim',
        '--trace',
        'gavel:40:30',
        '--cluster',
        'tesserae-32',
        '--policy',
        'fifo,srtf',
        '--report',
        dir,
      );
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /policy\s+jobs\s+done/);
      assert.ok(existsSync(join(dir, 'report.html')));
      const csv = readFileSync(join(dir, 'jobs.csv'), 'utf8').trim().split('\n');
      assert.equal(csv.length, 1 + 2 * 40);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad input gets a clear error naming what is wrong, never a crash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-bad-'));
    try {
      const unknownPolicy = tessera(
        'sim',
        '--trace',
        'gavel:5:10',
        '--cluster',
        'tesserae-32',
        '--policy',
        'fifo,bogus',
      );
      assert.equal(unknownPolicy.status, 1);
      assert.match(unknownPolicy.stderr, /unknown policy "bogus"; known policies: /);

      const mistyped = tessera(
        'sim',
        '--trace',
        'gavle:5:10',
        '--cluster',
        'tesserae-32',
        '--policy',
        'fifo',
      );
      assert.equal(mistyped.status, 1);
      assert.match(mistyped.stderr, /^tessera: no trace file gavle:5:10; builtin traces: philly \| gavel:/);

      const unknownFormat = tessera(
        'sim',
        '--trace',
        'gavel:5:10',
        '--cluster',
        'tesserae-32',
        '--policy',
        'fifo',
        '--format',
        'xml',
      );
      assert.equal(unknownFormat.status, 1);
      assert.match(unknownFormat.stderr, /unknown trace format "xml"; known formats: philly/);

      const emptyCluster = join(dir, 'empty.json');
      writeFileSync(
        emptyCluster,
        JSON.stringify({ name: 'empty', groups: [{ gpuType: 'V100', hosts: 2, gpusPerHost: 0 }] }),
      );
      const noGpus = tessera('sim', '--trace', 'gavel:5:10', '--cluster', emptyCluster, '--policy', 'fifo');
      assert.equal(noGpus.status, 1);
      assert.match(noGpus.stderr, /empty\.json: cluster empty: has no GPUs/);

      const badRows = join(dir, 'bad.csv');
      writeFileSync(
        badRows,
        'job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,606,vgg19,164,30\n1,-2,30,133,vgg11,147,23\n2,64,40,100,vgg16,100,10\n',
      );
      const rows = tessera(
        'sim',
        '--trace',
        badRows,
        '--cluster',
        'tesserae-32',
        '--policy',
        'fifo',
        '--json',
      );
      assert.equal(rows.status, 0, rows.stderr);
      assert.match(rows.stderr, /bad\.csv:3: num_gpu: /);
      const [line] = rows.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(line.jobs, 2);
      assert.equal(line.completed, 1);
      assert.equal(line.unschedulable, 1, 'the 64-GPU job cannot fit 32 GPUs: reported, not dropped');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tessera sim without its options', () => {
  test('names what is missing and points at --demo', () => {
    const run = tessera('sim', '--trace', 'philly');
    assert.equal(run.status, 1);
    assert.match(run.stderr, /tessera: sim needs --cluster, --policy \(or --demo\)/);
  });
});
