import { tessera } from '../plugins/tessera/policy.ts';
import type { Policy } from '../stages.ts';
import { BASELINE_POLICIES } from './baselines.ts';
import { CRIUS_POLICIES } from './crius.ts';
import { DALLY_POLICIES } from './dally.ts';
import { EASYSCALE_POLICIES } from './easyscale.ts';
import { ELASTICFLOW_POLICIES } from './elasticflow.ts';
import { gavel } from './gavel.ts';
import { TESSERAE_POLICIES } from './tesserae.ts';

/** Every named policy. Each paper's stages add their policies here (one import and one spread per file). */
export const POLICIES: ReadonlyMap<string, Policy> = new Map(
  [
    ...BASELINE_POLICIES,
    tessera,
    ...TESSERAE_POLICIES,
    gavel,
    ...DALLY_POLICIES,
    ...EASYSCALE_POLICIES,
    ...CRIUS_POLICIES,
    ...ELASTICFLOW_POLICIES,
  ].map((p) => [p.name, p]),
);

export const policyNames = (): string[] => [...POLICIES.keys()];

export const getPolicy = (name: string): Policy => {
  const policy = POLICIES.get(name);
  if (!policy) throw new Error(`unknown policy "${name}"; known policies: ${policyNames().join(', ')}`);
  return policy;
};
