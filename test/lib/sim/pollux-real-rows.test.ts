import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCluster } from '../../../lib/clusters/load.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { resolveDataDir } from '../../../lib/data/data-dir.ts';
import { loadDefaultPerfModel } from '../../../lib/data/perf.ts';
import { loadAllPolluxCurves } from '../../../lib/data/pollux-curves.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { toJobSpecs } from '../../../lib/sim/workload.ts';
import { parseTrace } from '../../../lib/traces/parse.ts';

// Rows of petuum/adaptdl `simulator/workloads/workload-1.csv` (Apache-2.0), unchanged: bert at its artifact batch of
// 384 on 6 and on 12 GPUs, 64 and 32 a GPU against a measured 12 (Pollux accumulates gradients above that).
const ROWS = `name,time,application,num_replicas,batch_size
bert-27,5813,bert,12,384
bert-130,21744,bert,6,384
`;

describe('real Pollux workload rows above the measured local batch (gradient accumulation)', () => {
  const perf = loadDefaultPerfModel();
  const trace = parseTrace(ROWS, 'workload-1.csv', {
    format: 'pollux',
    polluxCurves: loadAllPolluxCurves(resolveDataDir()),
  });
  const { jobs } = toJobSpecs(trace, { perf, referenceGpuType: 'V100-16GB' });

  test('every policy runs them to completion on the artifact’s 16 × 4 T4 cluster (none holds or drops them)', () => {
    for (const policy of ['fifo', 'srtf', 'tiresias', 'crius', 'tessera']) {
      const result = simulate({
        cluster: loadCluster('pollux-64'),
        jobs,
        policy: getPolicy(policy),
        perf,
        config: { roundSeconds: 60, restartSeconds: 30, seed: 0 },
      });
      assert.deepEqual(
        result.jobs.map((j) => [j.id, j.outcome]),
        [
          ['bert-27', 'completed'],
          ['bert-130', 'completed'],
        ],
        policy,
      );
    }
  });
});
