/** Which EC2 instance families the local fleet may launch for the GPU types a user asks for. */
import { getGpuType } from '../../core/catalog/gpus.ts';
import { INSTANCE_OFFERINGS } from '../../core/catalog/instances.ts';

/** Instance families (`g5`, `g4dn`, …) selling each type; a type EC2 does not sell is an error naming it. */
export const familiesForGpuTypes = (types: readonly string[]): string[] => {
  const families = new Set<string>();
  for (const name of types) {
    const id = getGpuType(name).id;
    const offered = INSTANCE_OFFERINGS.filter((o) => o.gpuType === id).map(
      (o) => o.instanceType.split('.')[0]!,
    );
    if (offered.length === 0)
      throw new Error(`GPU type ${name}: no EC2 instance family in the catalog offers it`);
    // The current generation first: a type sold by several families is launched from the first listed.
    families.add(offered[0]!);
  }
  return [...families];
};
