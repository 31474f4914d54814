import type { Policy } from '../stages.ts';
import { BASELINE_POLICIES } from './baselines.ts';
import { tessera } from './tessera.ts';

/** Every named policy. Each paper's stages add their policies here (one import and one spread per file). */
export const POLICIES: ReadonlyMap<string, Policy> = new Map(
  [...BASELINE_POLICIES, tessera].map((p) => [p.name, p]),
);

export const policyNames = (): string[] => [...POLICIES.keys()];

export const getPolicy = (name: string): Policy => {
  const policy = POLICIES.get(name);
  if (!policy) throw new Error(`unknown policy "${name}"; known policies: ${policyNames().join(', ')}`);
  return policy;
};
