import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type DeclaredProfile, userModelId } from '../../../../../lib/core/catalog/user-models.ts';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobSpec } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { AnalyticPerfModel } from '../../../../../lib/core/perf/analytic.ts';
import { withUserModels } from '../../../../../lib/core/perf/user-models.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, queued, spec } from '../../../../support/fixtures.ts';

/** A 1.3 B-parameter transformer as 24 identical blocks between an embedding and a head (fp16 weights). */
const block = { flops: 3.3e11, paramBytes: 1.0e8, activationBytes: 3.5e8, outputBytes: 4.2e6 };
const chain: DeclaredProfile = {
  family: 'transformer',
  layers: [
    { name: 'embedding', flops: 0, paramBytes: 2.1e8, activationBytes: 4.2e6, outputBytes: 4.2e6 },
    ...Array.from({ length: 24 }, (_, i) => ({ name: `block-${i + 1}`, ...block })),
    { name: 'head', flops: 6.3e11, paramBytes: 0, activationBytes: 2.1e8, outputBytes: 4 },
  ],
};

const userJob = (gpus: number): JobSpec => {
  const userModel = { name: 'acme/gpt-1.3b', profile: chain };
  return spec({
    id: 'chain',
    model: userModelId(userModel, { batchSize: 256, gpus }),
    userModel,
    batchSize: 256,
    gpus,
  });
};

describe('Crius Cells for a declared layer chain', () => {
  test('the job gets a Cell cut from its own chain: stages over its layers', () => {
    const job = userJob(8);
    const out = scheduleRound({
      now: 0,
      cluster: cluster([{ gpuType: 'A100-40GB', hosts: 2, gpusPerHost: 8 }]),
      jobs: [queued(job)],
      state: initialSchedulerState(),
      policy: getPolicy('crius'),
      perf: withUserModels(new AnalyticPerfModel(), [job]),
    });
    const cell = out.plan.get('chain')?.cell;
    assert.ok(cell, 'placed with a Cell');
    assert.equal(
      cell.stageGpus.reduce((a, b) => a + b, 0),
      cell.gpus,
    );
    assert.ok(cell.stageLayers, 'stage boundaries index the declared chain');
    assert.ok(cell.stageLayers.every((l) => l >= 0 && l < chain.layers!.length));
  });
});
