import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAlibabaPai } from '../../../lib/traces/alibaba-pai.ts';
import { parseGavel, parseShockwave } from '../../../lib/traces/gavel.ts';
import { parseHelios } from '../../../lib/traces/helios.ts';
import { parseJobsFile } from '../../../lib/traces/jobs-file.ts';
import { loadTrace } from '../../../lib/traces/load.ts';
import { parsePhilly } from '../../../lib/traces/philly.ts';
import { parsePollux } from '../../../lib/traces/pollux.ts';
import { parseTiresias } from '../../../lib/traces/tiresias.ts';
import { readFixture } from './fixtures.ts';

describe('each trace source carries its own hardware’s GPUs per host', () => {
  test('imported formats: Philly 8, Tiresias 4, Gavel and Shockwave 8, Pollux 4, Helios 8, PAI 8', () => {
    const hosts = {
      philly: parsePhilly(readFixture('philly-jobs.csv'), 'philly-jobs.csv'),
      tiresias: parseTiresias(readFixture('tiresias-tf_job.csv'), 'tf_job.csv'),
      gavel: parseGavel(readFixture('gavel-artifact_evaluation.trace'), 'g.trace'),
      shockwave: parseShockwave(readFixture('shockwave-120jobs.trace'), 's.trace'),
      pollux: parsePollux(readFixture('pollux-workload-1.csv'), 'workload-1.csv'),
      helios: parseHelios(readFixture('helios/cluster_log.csv'), 'cluster_log.csv'),
      pai: parseAlibabaPai(
        { text: readFixture('pai/pai_job_table.csv'), fileName: 'pai_job_table.csv' },
        { text: readFixture('pai/pai_task_table.csv'), fileName: 'pai_task_table.csv' },
      ),
    };
    assert.deepEqual(Object.fromEntries(Object.entries(hosts).map(([k, t]) => [k, t.referenceHostGpus])), {
      philly: 8,
      tiresias: 4,
      gavel: 8,
      shockwave: 8,
      pollux: 4,
      helios: 8,
      pai: 8,
    });
  });

  test('generators carry the convention of the source their sizes come from; a jobs file states none', () => {
    for (const spec of ['gavel:5:30', 'shockwave:5:30', 'poisson:5:30:gavel'])
      assert.equal(loadTrace(spec, { seed: 1 }).referenceHostGpus, 8, spec);
    assert.equal(loadTrace('poisson:5:30', { seed: 1 }).referenceHostGpus, 8, 'Philly sizes: Philly hosts');
    const own = parseJobsFile('- { submitTime: 0, model: resnet50, gpus: 16, duration: 60 }\n', 'mine.yaml');
    assert.equal(own.referenceHostGpus, undefined, 'unknown: the simulator default applies');
  });
});
