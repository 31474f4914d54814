// A model outside the catalog through the real round on DynamoDB Local: submitted without a profile, placed from the
// conservative estimate, calibrated by the round from the first throughput report in the Profiles table. The
// "measured" throughput is the simulator's ground truth for the model's real figures (lib/sim/ground-truth.ts: the
// performance model with hidden deviations), which the control plane never sees.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { JobItem } from '../../lib/aws/items/job-item.ts';
import { roundPerf } from '../../lib/aws/round/model-estimates.ts';
import { jobDetails } from '../../lib/cli/job-format.ts';
import type { JobView } from '../../lib/client/types.ts';
import type { DeclaredProfile } from '../../lib/core/catalog/user-models.ts';
import type { ThroughputQuery } from '../../lib/core/model/perf.ts';
import { allocationGpuCount } from '../../lib/core/model/plan.ts';
import { UserModelPerfModel, userModelEntries } from '../../lib/core/perf/user-models.ts';
import { loadDefaultPerfModel } from '../../lib/data/perf.ts';
import { groundTruthModel } from '../../lib/sim/ground-truth.ts';
import {
  admitHosts,
  callApi,
  invokeRound,
  jobDocument,
  register,
  sendTelemetry,
  submit,
} from './support/fixtures.ts';
import { type ControlPlane, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp?.stop();
});

/** What the model really is (a 350 M-parameter GPT-style network): only the ground truth knows it. */
const REAL: DeclaredProfile = {
  family: 'transformer',
  parameters: 3.5e8,
  flopsPerSample: 4.3e12,
  activationBytesPerSample: 1.4e8,
};

const getJob = async (jobId: string): Promise<JobView> =>
  (await callApi(cp, { method: 'GET', resource: '/jobs/{id}', pathParameters: { id: jobId } })).body.job;

const placementOf = (job: JobItem): ThroughputQuery => ({
  model: job.spec.model,
  batchSize: job.spec.batchSize,
  gpuType: job.allocation!.gpuType,
  gpus: allocationGpuCount(job.allocation!),
  shape: { level: job.placementLevel!, hosts: job.allocation!.slices.length },
});

describe('a model outside the catalog', () => {
  test('is estimated until the first telemetry, then calibrated: the prediction error before and after', async (t) => {
    await admitHosts(cp, 'host-1');
    await sendTelemetry(cp, register('host-1', 4));
    const { status, body } = await submit(
      cp,
      jobDocument({
        model: 'acme/llm-350m',
        batchSize: 16,
        gpus: 2,
        iterations: 1_000_000,
        clientToken: 'own',
      }),
    );
    assert.equal(status, 201, JSON.stringify(body));
    const jobId: string = body.job.jobId;
    assert.equal(body.job.modelBasis, 'estimated');
    assert.equal(body.job.modelName, 'acme/llm-350m');

    await invokeRound(cp);
    const placed = (await cp.jobs.get(jobId))!;
    assert.equal(placed.status, 'running');
    assert.equal(placed.modelEstimate?.basis, 'estimated');
    const predictedBefore = placed.modelEstimate!.predictedThroughput!;

    const base = loadDefaultPerfModel();
    const real = userModelEntries([placed.spec], () => ({ name: 'acme/llm-350m', profile: REAL }));
    const truth = groundTruthModel(new UserModelPerfModel(base, real), { seed: 7 });
    const where = placementOf(placed);
    const measured = truth.throughput(where).iterationsPerSecond;
    const errorBefore = predictedBefore / measured - 1;

    // The first report from the agent: one step time on the job's placement.
    await sendTelemetry(cp, {
      type: 'progress',
      hostId: 'host-1',
      at: Date.now() / 1000,
      jobId,
      jobGeneration: placed.jobGeneration,
      step: 10,
      stepTime: 1 / measured,
      samplesPerSecond: 16 * measured,
      gpuUtilization: 90,
    });
    await invokeRound(cp);
    const calibrated = (await cp.jobs.get(jobId))!;
    assert.deepEqual(placementOf(calibrated), where, 'same placement');
    assert.equal(calibrated.modelEstimate?.basis, 'calibrated');
    assert.equal(calibrated.modelEstimate?.samples, 1);
    const errorAfter = calibrated.modelEstimate!.predictedThroughput! / measured - 1;

    // Elsewhere, from the same Profiles table the round reads: other counts and another GPU type.
    const perf = roundPerf(base, [calibrated.spec], (await cp.profiles.listAll()).items).perf;
    const elsewhere = [
      { ...where, gpus: where.gpus === 2 ? 4 : 2 },
      { ...where, gpus: 8, shape: { level: 'rack' as const, hosts: 2 } },
      { ...where, gpuType: 'A100-40GB' },
      { ...where, gpuType: 'L4', gpus: 4 },
    ].map((q) => ({
      where: `${q.gpus} × ${q.gpuType}`,
      error: perf.throughput(q).iterationsPerSecond / truth.throughput(q).iterationsPerSecond - 1,
      // The ground truth's hidden efficiency on this type relative to the measured one: only a report there reveals it.
      hidden: Math.abs(
        Math.log(
          truth.efficiencyMultiplier(where.model, q.gpuType) /
            truth.efficiencyMultiplier(where.model, where.gpuType),
        ),
      ),
    }));
    t.diagnostic(`measured ${measured.toFixed(4)} it/s on ${where.gpus} × ${where.gpuType}`);
    t.diagnostic(
      `predicted before the first report ${predictedBefore} it/s: error ${(100 * errorBefore).toFixed(1)} %`,
    );
    t.diagnostic(
      `predicted after it ${calibrated.modelEstimate!.predictedThroughput} it/s: error ${(100 * errorAfter).toFixed(2)} %`,
    );
    for (const e of elsewhere)
      t.diagnostic(
        `after, on ${e.where}: error ${(100 * e.error).toFixed(1)} % (hidden efficiency of the type: ${(100 * (Math.exp(e.hidden) - 1)).toFixed(1)} %)`,
      );

    assert.ok(Math.abs(errorBefore) > 0.3, `the estimate is only a guess: ${errorBefore}`);
    assert.ok(Math.abs(errorAfter) <= 0.001, `after the first report: ${errorAfter}`);
    // Elsewhere the model's own error (its communication) stays within 20 %, beyond what the type hides.
    for (const e of elsewhere)
      assert.ok(Math.abs(Math.log(1 + e.error)) <= e.hidden + 0.2, `${e.where}: ${e.error}`);

    const view = await getJob(jobId);
    assert.equal(view.modelBasis, 'calibrated');
    const text = jobDetails(view, Date.now() / 1000);
    assert.match(text, /model: +acme\/llm-350m \(calibrated from 1 throughput report\(s\)\)/);
    assert.match(text, /throughput: +predicted [\d.]+ it\/s on this placement, measured [\d.]+ it\/s/);
  });

  test('a declared profile that fits no GPU of the cluster is never placed', async () => {
    const { body } = await submit(
      cp,
      jobDocument({
        model: 'acme/too-big',
        profile: { parameters: 3e9, flopsPerSample: 3.6e13, activationBytesPerSample: 1e8 },
        batchSize: 8,
        gpus: 2,
        clientToken: 'big',
      }),
    );
    assert.equal(body.job.modelBasis, 'declared');
    await invokeRound(cp);
    const job = (await cp.jobs.get(body.job.jobId))!;
    assert.equal(job.allocation, undefined);
    assert.ok(job.status === 'queued' || job.status === 'failed', job.status);
    assert.ok(job.waitReason ?? job.failureReason, 'says why');
  });
});
