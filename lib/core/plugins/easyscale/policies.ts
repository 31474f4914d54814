import type { Policy } from '../../framework/stages.ts';
import { BASELINE_POLICIES } from '../baselines/policies.ts';
import { withElasticTier } from './tier.ts';

const yarnCs = BASELINE_POLICIES.find((p) => p.name === 'yarn-cs');
if (!yarnCs) throw new Error('easyscale policies: the yarn-cs baseline is missing');

/**
 * EasyScale (SC '23): elastic jobs (`JobSpec.elastic`) are a best-effort tier on the GPUs guaranteed jobs leave idle,
 * scheduled by EasyScale's intra-job plans (Eq. 1, waste ≤ 0.30, proposals ≤ 2× the GPUs held) and inter-job greedy
 * (speedup per GPU); guaranteed (rigid) jobs run exactly as under `yarn-cs`, the paper's baseline.
 */
export const easyscale: Policy = {
  ...yarnCs,
  name: 'easyscale',
  description:
    'EasyScale: elastic jobs run their ESTs on idle GPUs of any type their kernels allow (heterogeneous plans by Eq. 1, greedy scale-out by speedup per GPU, fallback when a scale-out is measured slower) and yield to guaranteed jobs, which are scheduled as by yarn-cs.',
  ...withElasticTier(yarnCs, { homogeneousOnly: false }),
};

/** EasyScale_homo: the same, but every elastic job's plans use one GPU type (its preferred one when it names it). */
export const easyscaleHomo: Policy = {
  ...yarnCs,
  name: 'easyscale-homo',
  description:
    'EasyScale restricted to homogeneous plans: each elastic job scales on one GPU type (its preferred type when set); guaranteed jobs as by yarn-cs.',
  ...withElasticTier(yarnCs, { homogeneousOnly: true }),
};

export const EASYSCALE_POLICIES: readonly Policy[] = [easyscale, easyscaleHomo];
