import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadBloxNormSpeed } from '../../../lib/data/blox.ts';
import { DATA_DIR_ENV, resolveDataDir } from '../../../lib/data/data-dir.ts';
import { DataFileError } from '../../../lib/data/errors.ts';
import { loadGavelThroughputs, parseGavelKey, parseGavelThroughputs } from '../../../lib/data/gavel.ts';
import { loadDefaultPerfModel, loadMeasuredTables } from '../../../lib/data/perf.ts';
import { loadPolluxTable } from '../../../lib/data/pollux.ts';
import { FIXTURE_DATA_DIR } from './fixtures/tables.ts';

const scratch = mkdtempSync(join(tmpdir(), 'tessera-data-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the fixture data directory in which a test may break one file. */
const copyFixtures = (name: string): string => {
  const dir = join(scratch, name);
  cpSync(FIXTURE_DATA_DIR, dir, { recursive: true });
  return dir;
};

const failsWith = (file: string, detail: RegExp) => (error: unknown) =>
  error instanceof DataFileError && error.file.endsWith(file) && detail.test(error.message);

describe('data directory', () => {
  test('$TESSERA_DATA_DIR wins; otherwise ../shared/data next to the repository', () => {
    assert.equal(resolveDataDir({ [DATA_DIR_ENV]: '/somewhere/data' }), '/somewhere/data');
    const fallback = resolveDataDir({});
    assert.match(fallback, /[/\\]shared[/\\]data$/);
    assert.ok(!fallback.includes(`${join('lib', 'data')}`));
  });
});

describe('Gavel loader', () => {
  test('parses keys: job type, per-worker batch, scale', () => {
    assert.deepEqual(parseGavelKey("('ResNet-50 (batch size 64)', 4)", 'f'), {
      model: 'ResNet-50',
      batchSize: 64,
      scale: 4,
    });
    assert.deepEqual(parseGavelKey("('A3C', 1)", 'f'), { model: 'A3C', scale: 1 });
    assert.throws(
      () => parseGavelKey('ResNet-50', 'f.json'),
      /f\.json: key "ResNet-50" is not a \('<job type>', <scale>\) tuple/,
    );
  });

  test('reads the fixture table: sections, isolated throughputs and pairs', () => {
    const table = loadGavelThroughputs(FIXTURE_DATA_DIR);
    const r50 = table.records.find(
      (r) =>
        r.workerType === 'v100' &&
        r.consolidated &&
        r.job.model === 'ResNet-50' &&
        r.job.batchSize === 64 &&
        r.job.scale === 1,
    );
    assert.equal(r50?.isolated, 4.394774823323071);
    assert.ok(
      r50?.pairs.some((p) => p.partner.model === 'Transformer' && p.throughputs[0] === 2.55026372359856),
    );
    assert.ok(table.records.some((r) => r.workerType === 'v100' && !r.consolidated));
  });

  test('malformed content names the file and the offending key', () => {
    assert.throws(() => parseGavelThroughputs('{', 'g.json'), /g\.json: invalid JSON/);
    assert.throws(
      () => parseGavelThroughputs('[]', 'g.json'),
      /g\.json: expected an object keyed by worker type/,
    );
    assert.throws(
      () => parseGavelThroughputs(JSON.stringify({ v100: { "('A3C', 1)": { null: 'fast' } } }), 'g.json'),
      /g\.json: "v100" → "\('A3C', 1\)" → "null": expected a throughput ≥ 0, got "fast"/,
    );
    assert.throws(
      () =>
        parseGavelThroughputs(
          JSON.stringify({ v100: { "('A3C', 1)": { null: 1, "('A3C', 1)": [1] } } }),
          'g.json',
        ),
      /expected \[self, partner\] throughputs/,
    );
  });

  test('a missing file is a DataFileError naming it', () => {
    assert.throws(
      () => loadGavelThroughputs(join(scratch, 'nowhere')),
      failsWith('simulation_throughputs.json', /file not found/),
    );
  });
});

describe('Pollux and Blox loaders', () => {
  test('read the fixture CSVs', () => {
    const pollux = loadPolluxTable(FIXTURE_DATA_DIR);
    assert.deepEqual(
      pollux.applications.map((a) => a.name),
      ['cifar10', 'imagenet'],
    );
    const imagenet = pollux.applications.find((a) => a.name === 'imagenet');
    assert.deepEqual(imagenet?.placements[0], {
      placement: '1',
      localBatchSize: 20,
      stepTime: 0.14740917682647706,
      syncTime: 0.0012090879917144776,
    });
    assert.ok((imagenet?.scalability.length ?? 0) > 0);
    assert.deepEqual(pollux.applications.find((a) => a.name === 'cifar10')?.scalability, []);

    const blox = loadBloxNormSpeed(FIXTURE_DATA_DIR);
    const alone = blox.records.find((r) => r.index === 0);
    assert.deepEqual(alone, {
      index: 0,
      model1: 'Bert-Large',
      dataset1: 'WikiText',
      gpus1: 2,
      batch1: { text: '256/16', size: 256, microBatch: 16 },
      speed1: 0.78,
      gpus2: 0,
      speed2: 0,
      pipelineStrategy: '10,14',
    });
    const pair = blox.records.find((r) => r.index === 297);
    assert.equal(pair?.model2, 'resnet50');
    assert.deepEqual(pair?.batch2, { text: '32', size: 32 });
    assert.equal(pair?.coPipelineRank, '0');
  });

  test('a bad cell names the file, line and column', () => {
    const dir = copyFixtures('bad-pollux');
    writeFileSync(
      join(dir, 'pollux', 'cifar10', 'placements.csv'),
      'placement,local_bsz,step_time,sync_time\n1,32,0.04,0.0005\n1,45,-1,0.0005\n',
    );
    assert.throws(
      () => loadPolluxTable(dir),
      failsWith(
        'placements.csv',
        /placements\.csv:3: column "step_time" must be a positive number, got "-1"/,
      ),
    );
    writeFileSync(
      join(dir, 'pollux', 'cifar10', 'placements.csv'),
      'placement,local_bsz,step_time\n1,32,0.04\n',
    );
    assert.throws(() => loadPolluxTable(dir), /placements\.csv:1: header lacks column\(s\) sync_time/);
    writeFileSync(
      join(dir, 'pollux', 'cifar10', 'placements.csv'),
      'placement,local_bsz,step_time,sync_time\n1,32,0.04,0.5\n',
    );
    assert.throws(() => loadPolluxTable(dir), /placements\.csv:2: sync_time 0\.5 exceeds step_time 0\.04/);
  });

  test('a bad Blox batch names the row', () => {
    const dir = copyFixtures('bad-blox');
    writeFileSync(
      join(dir, 'blox', 'norm_speed.csv'),
      'index,model1,dataset1,gpu_num1,batch_size1,speed1,co_pipeline_rank,pipeline_strategy,model2,dataset2,gpu_num2,batch_size2,speed2\n0,Bert-Large,WikiText,2,big,0.78,NA,NA,Empty,NA,0,0,0.0\n',
    );
    assert.throws(
      () => loadBloxNormSpeed(dir),
      /norm_speed\.csv:2: column "batch_size1" must be a batch size N or N\/M, got "big"/,
    );
  });
});

describe('default performance model', () => {
  test('builds the composite model from a data directory', () => {
    const warnings: string[] = [];
    const model = loadDefaultPerfModel({ dataDir: FIXTURE_DATA_DIR, onWarning: (m) => warnings.push(m) });
    assert.deepEqual(warnings, []);
    const e = model.throughput({
      model: 'resnet50',
      batchSize: 64,
      gpuType: 'V100',
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
    });
    assert.equal(e.source, 'measured');
  });

  test('without a data directory it is analytic-only, with a warning', () => {
    const warnings: string[] = [];
    const missing = join(scratch, 'no-data-here');
    const model = loadDefaultPerfModel({ dataDir: missing, onWarning: (m) => warnings.push(m) });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /no-data-here not found: using the analytic model only/);
    const e = model.throughput({
      model: 'resnet50',
      batchSize: 64,
      gpuType: 'V100',
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
    });
    assert.equal(e.source, 'analytic');
    assert.ok(e.iterationsPerSecond > 0);
  });

  test('a data directory missing one file throws naming it', () => {
    const dir = copyFixtures('no-blox');
    rmSync(join(dir, 'blox'), { recursive: true });
    assert.throws(() => loadMeasuredTables(dir), failsWith('norm_speed.csv', /file not found/));
  });

  const shared = resolveDataDir();
  test('the full shared data directory loads without skipped rows', {
    skip: !existsSync(shared) && `${shared} absent`,
  }, () => {
    const warnings: string[] = [];
    const tables = loadMeasuredTables(shared);
    assert.equal(tables.gavel?.records.length, 83 * 5 + 77);
    assert.equal(tables.pollux?.applications.length, 6);
    assert.equal(tables.blox?.records.length, 660);
    loadDefaultPerfModel({ dataDir: shared, onWarning: (m) => warnings.push(m) });
    assert.deepEqual(warnings, []);
  });
});
