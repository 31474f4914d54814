/**
 * Synthesizing the stack takes seconds (aws-cdk-lib is large); the local cloud keeps the template in
 * `node_modules/.cache/tessera-local/` (outside any state directory, so `--fresh` and tests reuse it), keyed by
 * the context and the infrastructure code, and synthesizes again only when either changes.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CfnTemplate } from '../endpoint/template/create-resources.ts';

const CACHE_DIR = fileURLToPath(new URL('../../../node_modules/.cache/tessera-local/', import.meta.url));
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
  context: Record<string, unknown>,
): Promise<{ template: CfnTemplate; cached: boolean }> => {
  const key = templateKey(context);
  const file = join(CACHE_DIR, `template-${key.slice(0, 16)}.json`);
  if (existsSync(file))
    return { template: JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate, cached: true };
  const { synthesizeTemplate } = await import('./template.ts');
  const template = synthesizeTemplate(context);
  mkdirSync(CACHE_DIR, { recursive: true });
  // Written whole then renamed: a concurrent reader never sees half a file.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(template));
  renameSync(partial, file);
  return { template, cached: false };
};
