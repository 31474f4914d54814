import type { Policy } from './framework/stages.ts';
import { BASELINE_POLICIES } from './plugins/baselines/policies.ts';
import { CRIUS_POLICIES } from './plugins/crius/policies.ts';
import { DALLY_POLICIES } from './plugins/dally/policies.ts';
import { EASYSCALE_POLICIES } from './plugins/easyscale/policies.ts';
import { ELASTICFLOW_POLICIES } from './plugins/elasticflow/policies.ts';
import { gavel } from './plugins/gavel/policies.ts';
import { tessera } from './plugins/tessera/policy.ts';
import { TESSERAE_POLICIES } from './plugins/tesserae/policies.ts';

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
