import { steadyState } from '../../../../../bench/round.ts';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { RoundMemo } from '../../../../../lib/core/framework/round-memo.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import type { PerfModel } from '../../../../../lib/core/model/perf.ts';
import type { SchedulerState } from '../../../../../lib/core/model/state.ts';
import type { CellCalibrationState } from '../../../../../lib/core/plugins/crius/state.ts';

/**
 * A steady Crius round on `cluster` (`jobs` jobs, some running) for property tests of what Crius computes under a
 * changing calibration: the round's context under any calibration and memo, and an efficiency per model and type
 * drawn from `factors` (undefined: never observed).
 */
export const calibrationFixture = (cluster: Cluster, jobs: number, perf: PerfModel) => {
  const { policy, states, state, now } = steadyState(cluster, jobs, 'crius', perf, 3);
  const models = [...new Set(states.map((j) => j.spec.model))];
  const types = [...new Set(cluster.hosts.map((h) => h.gpuType))];
  const contextOf = (calibration: CellCalibrationState, memo: RoundMemo) =>
    roundContext({
      now,
      cluster,
      jobs: states,
      state: { ...state, cellCalibration: calibration } as SchedulerState,
      policy,
      perf,
      memo,
    });
  const efficiencyOf = (factors: readonly (number | undefined)[]): Record<string, number> => {
    const efficiency: Record<string, number> = {};
    for (const [i, m] of models.entries()) {
      for (const [k, t] of types.entries()) {
        const f = factors[(i * types.length + k) % factors.length];
        if (f !== undefined) efficiency[`${m}|${t}`] = f;
      }
    }
    return efficiency;
  };
  return { states, running: states.filter((j) => j.allocation), contextOf, efficiencyOf };
};
