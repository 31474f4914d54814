/**
 * Synthesizing the stack takes seconds (aws-cdk-lib is large); the local cloud keeps the template in its state
 * directory, keyed by the context and the infrastructure code, and synthesizes again only when either changes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CfnTemplate } from '../endpoint/template/create-resources.ts';

const INFRA_DIR = fileURLToPath(new URL('../../infra/', import.meta.url));
const ENVIRONMENT_FILE = fileURLToPath(new URL('../../aws/environment.ts', import.meta.url));

const templateKey = (context: Record<string, unknown>): string => {
  const hash = createHash('sha256').update(JSON.stringify(context));
  for (const file of readdirSync(INFRA_DIR).sort())
    hash.update(file).update(readFileSync(join(INFRA_DIR, file)));
  hash.update(readFileSync(ENVIRONMENT_FILE));
  return hash.digest('hex');
};

export const cachedTemplate = async (
  stateDir: string,
  context: Record<string, unknown>,
): Promise<{ template: CfnTemplate; cached: boolean }> => {
  const file = join(stateDir, 'template.json');
  const key = templateKey(context);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { key: string; template: CfnTemplate };
    if (stored.key === key) return { template: stored.template, cached: true };
  }
  const { synthesizeTemplate } = await import('./template.ts');
  const template = synthesizeTemplate(context);
  writeFileSync(file, JSON.stringify({ key, template }));
  return { template, cached: false };
};
