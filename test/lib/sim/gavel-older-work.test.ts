import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { findModelProfile } from '../../../lib/core/catalog/models.ts';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { resolveDataDir } from '../../../lib/data/data-dir.ts';
import { groundTruthModel } from '../../../lib/sim/ground-truth.ts';
import { DEFAULT_MODEL_MIX } from '../../../lib/sim/model-mix.ts';
import { DEFAULT_REFERENCE_GPU, loadWorkload } from '../../../lib/sim/run.ts';
import { type ExecutorModel, simulate } from '../../../lib/sim/simulator.ts';
import { toJobSpecs } from '../../../lib/sim/workload.ts';
import { assignModels } from '../../../lib/traces/generators/models.ts';
import { readTrace } from '../../../lib/traces/read.ts';
import { fixturePath, readFixture } from '../traces/fixtures.ts';

/**
 * Gavel's older layouts through the real reader: each job alone on its reference allocation (the reference type at
 * its scale factor) takes its run time within 5 %. The step layouts' run time is `total_steps` ÷ the v100 rate of
 * Gavel's shared table at the scale factor (a bare job type runs at the catalog's default batch); the poisson
 * layout's is seconds per step × steps.
 */
const gavelTable = JSON.parse(
  readFileSync(join(resolveDataDir(), 'gavel', 'simulation_throughputs.json'), 'utf8'),
) as Record<string, Record<string, { null: number }>>;

const tableRate = (jobType: string, scale: string): number => {
  const exact = gavelTable.v100![`('${jobType}', ${scale})`];
  if (exact !== undefined) return exact.null;
  const batch = findModelProfile(jobType)!.defaultBatchSize;
  return gavelTable.v100![`('${jobType} (batch size ${batch})', ${scale})`]!.null;
};

const CASES = [
  {
    file: 'gavel-msr-0e4a51.trace',
    runTime: (f: string[]) => Number(f[4]) / tableRate(f[0]!, f[6]!),
    cannotRun: ['gavel-msr-10'], // A3C on 4 GPUs: no rate at that scale factor
  },
  {
    file: 'gavel-steps-arrival_rate_1.trace',
    runTime: (f: string[]) => Number(f[3]) / tableRate(f[0]!, f[5]!),
    cannotRun: [],
  },
  {
    file: 'gavel-poisson-long.trace',
    runTime: (f: string[]) => Number(f[3]) * Number(f[4]),
    cannotRun: [],
  },
];

describe("Gavel's older trace layouts: a job alone on its reference allocation takes its run time", () => {
  for (const { file, runTime, cannotRun } of CASES) {
    const lines = readFixture(file)
      .split('\n')
      .filter((l) => l.trim() !== '');
    const fieldsOf = (spec: JobSpec): string[] => lines[Number(spec.id.split('-').at(-1)) - 1]!.split('\t');
    const workload = loadWorkload({ trace: fixturePath(file), cluster: 'tesserae-80-v100', seed: 0 });
    const alone = (truth: ExecutorModel, spec: JobSpec): number =>
      simulate({
        cluster: workload.cluster,
        jobs: [{ ...spec, submitTime: 0 }],
        policy: getPolicy('fifo'),
        perf: workload.perf,
        truth,
      }).jobs[0]!.jct!;

    test(`${file}: every row that can run takes its run time (±5 %) without run-to-run noise`, () => {
      assert.deepEqual(
        workload.workloadIssues.map((i) => i.jobId),
        cannotRun,
      );
      const truth = groundTruthModel(workload.perf, { seed: 0, noiseSigma: 0 });
      const trace = assignModels(readTrace(fixturePath(file)), { models: DEFAULT_MODEL_MIX, seed: 0 });
      const { jobs } = toJobSpecs(trace, {
        perf: workload.perf,
        truth,
        referenceGpuType: DEFAULT_REFERENCE_GPU,
      });
      assert.equal(jobs.length, lines.length - cannotRun.length);
      for (const spec of jobs) {
        const ratio = alone(truth, spec) / runTime(fieldsOf(spec));
        assert.ok(
          Math.abs(ratio - 1) <= 0.05,
          `${spec.id} (${spec.model}, ${spec.gpus} GPUs): JCT/run time ${ratio}`,
        );
      }
    });
  }
});
