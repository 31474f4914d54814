import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { getModelProfile } from '../../../lib/core/catalog/models.ts';
import type { Cluster } from '../../../lib/core/model/cluster.ts';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import type { PerfModel, PlacementShape } from '../../../lib/core/model/perf.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { resolveDataDir } from '../../../lib/data/data-dir.ts';
import { loadDefaultPerfModel } from '../../../lib/data/perf.ts';
import { GroundTruthPerfModel, groundTruthModel } from '../../../lib/sim/ground-truth.ts';
import { DEFAULT_MODEL_MIX } from '../../../lib/sim/model-mix.ts';
import { DEFAULT_REFERENCE_HOST_GPUS } from '../../../lib/sim/reference-placement.ts';
import { DEFAULT_REFERENCE_GPU, loadWorkload } from '../../../lib/sim/run.ts';
import { type ExecutorModel, simulate } from '../../../lib/sim/simulator.ts';
import { toJobSpecs } from '../../../lib/sim/workload.ts';
import { assignModels } from '../../../lib/traces/generators/models.ts';
import { loadTrace } from '../../../lib/traces/load.ts';
import { parseTrace } from '../../../lib/traces/parse.ts';
import type { Trace } from '../../../lib/traces/types.ts';
import { cluster, linearPerf } from '../../support/fixtures.ts';
import { fixturePath, readFixture } from '../traces/fixtures.ts';

const trace = (jobs: Trace['jobs']): Trace => ({
  name: 't',
  format: 'generated',
  source: 'test',
  jobs,
  issues: [],
});

describe('trace rows → job specs', () => {
  test('a recorded duration becomes the iterations run in that time on the reference GPU type', () => {
    // linearPerf: 1 it/s per GPU × type speed 3 → a 4-GPU job does 12 it/s; 100 s → 1,200 iterations.
    const { jobs, issues } = toJobSpecs(
      trace([{ id: 'a', submitTime: 50, gpus: 4, duration: 100, model: 'resnet50' }]),
      {
        perf: linearPerf({ 'V100-16GB': 3 }),
        referenceGpuType: 'V100-16GB',
      },
    );
    assert.deepEqual(issues, []);
    assert.equal(jobs[0]!.iterations, 1200);
    assert.equal(jobs[0]!.submitTime, 50);
    assert.equal(
      jobs[0]!.batchSize,
      getModelProfile('resnet50').defaultBatchSize,
      'catalog default when the trace has none',
    );
  });

  test('iterations given by the trace are kept; catalog aliases resolve; load scales arrivals', () => {
    const { jobs } = toJobSpecs(
      trace([
        {
          id: 'b',
          submitTime: 100,
          gpus: 1,
          iterations: 77,
          model: 'ResNet-50',
          batchSize: 64,
          tenant: 'vc1',
        },
      ]),
      { perf: linearPerf(), referenceGpuType: 'V100-16GB', load: 2 },
    );
    assert.equal(jobs[0]!.iterations, 77);
    assert.equal(jobs[0]!.model, 'resnet50');
    assert.equal(jobs[0]!.batchSize, 64);
    assert.equal(jobs[0]!.tenant, 'vc1');
    assert.equal(jobs[0]!.submitTime, 50);
  });

  test('rows that cannot become jobs are reported with the reason, never dropped silently', () => {
    const { jobs, issues } = toJobSpecs(
      trace([
        { id: 'nomodel', submitTime: 0, gpus: 1, duration: 10 },
        { id: 'unknown', submitTime: 0, gpus: 1, duration: 10, model: 'resnet9000' },
        { id: 'nowork', submitTime: 0, gpus: 1, model: 'resnet50' },
      ]),
      { perf: linearPerf(), referenceGpuType: 'V100-16GB' },
    );
    assert.equal(jobs.length, 0);
    assert.deepEqual(
      issues.map((i) => [i.jobId, i.message]),
      [
        ['nomodel', 'no model: assign models to the trace first'],
        ['unknown', 'model "resnet9000" is not in the catalog: give its batchSize'],
        ['nowork', 'neither iterations nor duration'],
      ],
    );
    assert.throws(
      () => toJobSpecs(trace([]), { perf: linearPerf(), referenceGpuType: 'V100-16GB', load: 0 }),
      /--load must be a positive number/,
    );
  });
});

/**
 * Gavel and Shockwave write `total_steps = run_time × throughput(job_type, scale_factor)` on the reference worker
 * type (Gavel `scheduler/utils.py`, `generate_job`): an imported job alone on the reference type at its scale
 * factor must take its run time under the simulator's executor model.
 */
describe('Gavel and Shockwave jobs alone on the reference allocation take their run time', () => {
  const gavelTable = JSON.parse(
    readFileSync(join(resolveDataDir(), 'gavel', 'simulation_throughputs.json'), 'utf8'),
  ) as Record<string, Record<string, { null: number }>>;
  /** Run time behind a Gavel row, straight from the shared table: total_steps ÷ v100 rate at the scale factor. */
  const gavelRunTime = (line: string): number => {
    const f = line.split('\t');
    const rate = gavelTable.v100![`('${f[0]}', ${f[6]})`]!.null;
    return Number(f[5]) / rate;
  };
  const shockwaveRunTime = (line: string): number => Number(line.split('\t')[10]);

  const cases = [
    { file: 'gavel-artifact_evaluation.trace', runTime: gavelRunTime },
    { file: 'shockwave-120jobs.trace', runTime: shockwaveRunTime },
  ];
  for (const { file, runTime } of cases) {
    const lines = readFixture(file)
      .split('\n')
      .filter((l) => l.trim() !== '');
    const workload = loadWorkload({ trace: fixturePath(file), cluster: 'tesserae-80-v100', seed: 0 });
    const alone = (truth: ExecutorModel, spec: JobSpec): number => {
      const result = simulate({
        cluster: workload.cluster,
        jobs: [{ ...spec, submitTime: 0 }],
        policy: getPolicy('fifo'),
        perf: workload.perf,
        truth,
      });
      return result.jobs[0]!.jct!;
    };

    test(`${file}: every row imports and runs its run time (±5 %) under the executor without run-to-run noise`, () => {
      assert.deepEqual(workload.workloadIssues, []);
      assert.equal(workload.jobs.length, lines.length);
      // The hidden per-(model, GPU type) efficiency deviations stay; only the per-run noise is off.
      const truth = groundTruthModel(workload.perf, { seed: 0, noiseSigma: 0 });
      const { jobs } = toJobSpecs(parseTrace(readFixture(file), file), {
        perf: workload.perf,
        truth,
        referenceGpuType: DEFAULT_REFERENCE_GPU,
      });
      for (const [i, spec] of jobs.entries()) {
        const line = lines[Number(spec.id.split('-').at(-1)) - 1]!;
        const ratio = alone(truth, spec) / runTime(line);
        assert.ok(
          Math.abs(ratio - 1) <= 0.05,
          `${file} job ${i} (${spec.model}, ${spec.gpus} GPUs): JCT/run time ${ratio}`,
        );
      }
    });

    test(`${file}: through loadWorkload, every job alone takes its run time within 5 % and the per-run noise`, () => {
      const noise = workload.truth instanceof GroundTruthPerfModel ? workload.truth.maxJobNoise : 1;
      for (const spec of workload.jobs) {
        const line = lines[Number(spec.id.split('-').at(-1)) - 1]!;
        const ratio = alone(workload.truth, spec) / runTime(line);
        assert.ok(
          ratio <= 1.05 * noise && ratio >= 1 / (1.05 * noise),
          `${spec.id} (${spec.model}, ${spec.gpus} GPUs): JCT/run time ${ratio}`,
        );
      }
    });
  }
});

describe('the Gavel- and Shockwave-style generators follow the same rule', () => {
  for (const name of ['gavel:24:40', 'shockwave:24:40']) {
    test(`${name}: every job alone on its reference allocation takes its drawn duration (±5 %)`, () => {
      const workload = loadWorkload({ trace: name, cluster: 'tesserae-80-v100', seed: 4 });
      const truth = groundTruthModel(workload.perf, { seed: 4, noiseSigma: 0 });
      const trace = assignModels(loadTrace(name, { seed: 4 }), { models: DEFAULT_MODEL_MIX, seed: 4 });
      const { jobs, issues } = toJobSpecs(trace, {
        perf: workload.perf,
        truth,
        referenceGpuType: DEFAULT_REFERENCE_GPU,
      });
      assert.deepEqual(issues, []);
      for (const spec of jobs) {
        const duration = trace.jobs.find((j) => j.id === spec.id)!.duration!;
        const result = simulate({
          cluster: workload.cluster,
          jobs: [{ ...spec, submitTime: 0 }],
          policy: getPolicy('fifo'),
          perf: workload.perf,
          truth,
        });
        const ratio = result.jobs[0]!.jct! / duration;
        assert.ok(Math.abs(ratio - 1) <= 0.05, `${spec.id} (${spec.model}, ${spec.gpus} GPUs): ${ratio}`);
      }
    });
  }
});

/**
 * A recorded run time was measured on the trace's own hosts (Philly: 8 GPUs, Tiresias: 4), so a job larger than one
 * host ran across several of them: alone on a cluster of those hosts, under the real simulator, it takes the
 * recorded time — not the time of an idealised single machine holding all its GPUs.
 */
describe('a multi-host job alone on the trace source’s own hosts takes its recorded run time', () => {
  const aloneJct = (c: Cluster, spec: JobSpec, perf: PerfModel, truth: ExecutorModel): number => {
    const result = simulate({
      cluster: c,
      jobs: [{ ...spec, submitTime: 0 }],
      policy: getPolicy('fifo'),
      perf,
      truth,
    });
    return result.jobs[0]!.jct!;
  };

  test('Tiresias tf_job.csv: the 12-GPU vgg19 job on tiresias-n32g4 (4-GPU hosts) takes its 20 s', () => {
    const file = join(resolveDataDir(), 'tiresias', 'tf_job.csv');
    const workload = loadWorkload({ trace: file, cluster: 'tiresias-n32g4', seed: 0 });
    assert.equal(workload.reference.hostGpus, 4, 'the Tiresias cluster spec: num_gpu_p_node = 4');
    assert.deepEqual(workload.workloadIssues, []);
    const recorded = parseTrace(readFileSync(file, 'utf8'), file).jobs;
    const noise = workload.truth instanceof GroundTruthPerfModel ? workload.truth.maxJobNoise : 1;
    for (const spec of workload.jobs) {
      const duration = recorded.find((j) => j.id === spec.id)!.duration!;
      assert.equal(spec.gpus, 12);
      const ratio = aloneJct(workload.cluster, spec, workload.perf, workload.truth) / duration;
      assert.ok(ratio <= 1.05 * noise && ratio >= 1 / (1.05 * noise), `${spec.id}: JCT/duration ${ratio}`);
    }
  });

  test('Philly rows of 4–32 GPUs on a cluster of 8-GPU hosts take their recorded durations (±5 %)', () => {
    const csv = [
      'timestamp,duration,num_gpus,gpu_time,cluster',
      '2017-10-03 10:00:00,3600,4,14400,vc1',
      '2017-10-03 10:05:00,5400,16,86400,vc1',
      '2017-10-03 10:10:00,7200,24,172800,vc2',
      '2017-10-03 10:15:00,1800,32,57600,vc2',
    ].join('\n');
    const philly = parseTrace(csv, 'philly-like.csv', { format: 'philly' });
    assert.equal(philly.referenceHostGpus, 8, 'Philly servers hold at most 8 GPUs');
    const withModels = assignModels(philly, { models: DEFAULT_MODEL_MIX, seed: 3 });
    const perf = loadDefaultPerfModel();
    const truth = groundTruthModel(perf, { seed: 3, noiseSigma: 0 });
    const { jobs, issues } = toJobSpecs(withModels, { perf, truth, referenceGpuType: DEFAULT_REFERENCE_GPU });
    assert.deepEqual(issues, []);
    const hostsOf8 = cluster([{ gpuType: DEFAULT_REFERENCE_GPU, hosts: 4, gpusPerHost: 8, hostsPerRack: 4 }]);
    for (const spec of jobs) {
      const duration = withModels.jobs.find((j) => j.id === spec.id)!.duration!;
      const ratio = aloneJct(hostsOf8, spec, perf, truth) / duration;
      assert.ok(Math.abs(ratio - 1) <= 0.05, `${spec.id} (${spec.model}, ${spec.gpus} GPUs): ${ratio}`);
    }
  });

  test('Gavel and Shockwave jobs at scale factors above the host size (Gavel’s own 1-GPU servers) still take their run time', () => {
    const gavelTable = JSON.parse(
      readFileSync(join(resolveDataDir(), 'gavel', 'simulation_throughputs.json'), 'utf8'),
    ) as Record<string, Record<string, { null: number }>>;
    const runTimes = {
      'gavel-artifact_evaluation.trace': (f: string[]) =>
        Number(f[5]) / gavelTable.v100![`('${f[0]}', ${f[6]})`]!.null,
      'shockwave-120jobs.trace': (f: string[]) => Number(f[10]),
    };
    // Gavel's simulator defaults to one GPU per server (`--num_gpus_per_server 1:1:1`).
    const oneGpuServers = cluster([
      { gpuType: DEFAULT_REFERENCE_GPU, hosts: 16, gpusPerHost: 1, hostsPerRack: 16 },
    ]);
    for (const [file, runTime] of Object.entries(runTimes)) {
      const lines = readFixture(file)
        .split('\n')
        .filter((l) => l.trim() !== '');
      const workload = loadWorkload({
        trace: fixturePath(file),
        cluster: 'tesserae-80-v100',
        seed: 0,
        referenceHostGpus: 1,
      });
      assert.equal(workload.reference.hostGpus, 1);
      const truth = groundTruthModel(workload.perf, { seed: 0, noiseSigma: 0 });
      const { jobs } = toJobSpecs(parseTrace(readFixture(file), file), {
        perf: workload.perf,
        truth,
        referenceGpuType: DEFAULT_REFERENCE_GPU,
        referenceHostGpus: 1,
      });
      const above = jobs.filter((j) => j.gpus > 1);
      assert.ok(above.length > 0, `${file} has multi-GPU jobs`);
      for (const spec of above) {
        const fields = lines[Number(spec.id.split('-').at(-1)) - 1]!.split('\t');
        const ratio = aloneJct(oneGpuServers, spec, workload.perf, truth) / runTime(fields);
        assert.ok(
          Math.abs(ratio - 1) <= 0.05,
          `${file} ${spec.id} (${spec.model}, ${spec.gpus} GPUs): ${ratio}`,
        );
      }
    }
  });

  test('a job within one host keeps its work; a larger one is converted on the fewest hosts; the option wins', () => {
    const perf = loadDefaultPerfModel();
    const RESNET_BATCH = getModelProfile('resnet50').defaultBatchSize;
    const rows: Trace['jobs'] = [
      { id: 'small', submitTime: 0, gpus: 4, duration: 1000, model: 'resnet50' },
      { id: 'large', submitTime: 0, gpus: 16, duration: 1000, model: 'resnet50' },
    ];
    const convert = (referenceHostGpus: number | undefined, traceHosts?: number) =>
      toJobSpecs(
        { ...trace(rows), ...(traceHosts !== undefined ? { referenceHostGpus: traceHosts } : {}) },
        {
          perf,
          referenceGpuType: DEFAULT_REFERENCE_GPU,
          ...(referenceHostGpus !== undefined ? { referenceHostGpus } : {}),
        },
      );
    const rate = (gpus: number, shape: PlacementShape): number =>
      perf.throughput({
        model: 'resnet50',
        batchSize: RESNET_BATCH,
        gpuType: DEFAULT_REFERENCE_GPU,
        gpus,
        shape,
      }).iterationsPerSecond;
    const byHosts = (hosts: number | undefined, traceHosts?: number) => {
      const { jobs, reference } = convert(hosts, traceHosts);
      return { small: jobs[0]!.iterations, large: jobs[1]!.iterations, hostGpus: reference.hostGpus };
    };
    const onMachine = Math.round(1000 * rate(4, { level: 'machine', hosts: 1 }));
    const of8 = byHosts(undefined);
    assert.equal(of8.hostGpus, DEFAULT_REFERENCE_HOST_GPUS, 'no source convention: the documented default');
    assert.equal(of8.small, onMachine, 'a job within one host: the one-machine rate, as before');
    assert.equal(of8.large, Math.round(1000 * rate(16, { level: 'rack', hosts: 2 })));
    const of4 = byHosts(undefined, 4);
    assert.equal(of4.hostGpus, 4, "the trace's own host size");
    assert.equal(of4.small, onMachine);
    assert.equal(of4.large, Math.round(1000 * rate(16, { level: 'rack', hosts: 4 })));
    assert.ok(of4.large < of8.large, 'more hosts, more all-reduce across them: less work in the same time');
    assert.equal(
      byHosts(16, 4).large,
      Math.round(1000 * rate(16, { level: 'machine', hosts: 1 })),
      'option wins',
    );
    assert.throws(() => convert(0), /positive whole number of GPUs per host/);
  });
});
