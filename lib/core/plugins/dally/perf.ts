import {
  DALLY_TABLE_I_COMM,
  DEFAULT_PERF_PARAMETERS,
  mergePerfParameters,
  type PerfParameters,
} from '../../perf/parameters.ts';

/**
 * Performance parameters of the Dally evaluation network: `base` with the Table I communication calibration of its six
 * models on top (other models keep `base`'s communication).
 */
export const dallyPerfParameters = (base: PerfParameters = DEFAULT_PERF_PARAMETERS): PerfParameters =>
  mergePerfParameters(base, { comm: { models: DALLY_TABLE_I_COMM } });
