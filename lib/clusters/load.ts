import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveGpuTypeId } from '../core/catalog/gpus.ts';
import type { Cluster } from '../core/model/cluster.ts';
import { formatZodIssues } from '../protocol/format.ts';
import { clusterSpecSchema, expandCluster } from './spec.ts';

const PRESET_DIR = join(dirname(fileURLToPath(import.meta.url)), 'presets');

export const clusterPresets = (): string[] =>
  readdirSync(PRESET_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => basename(f, '.json'))
    .sort();

/** Parse cluster JSON text; errors name the file and the field. */
export const parseCluster = (text: string, file: string): Cluster => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = clusterSpecSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${file}: invalid cluster:\n${formatZodIssues(parsed.error.issues)}`);
  try {
    return expandCluster(parsed.data, resolveGpuTypeId);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
};

/** A preset name (see `clusterPresets()`) or a path to a cluster JSON file. */
export const loadCluster = (nameOrPath: string): Cluster => {
  if (clusterPresets().includes(nameOrPath)) {
    const file = join(PRESET_DIR, `${nameOrPath}.json`);
    return parseCluster(readFileSync(file, 'utf8'), file);
  }
  let text: string;
  try {
    text = readFileSync(nameOrPath, 'utf8');
  } catch {
    throw new Error(
      `unknown cluster "${nameOrPath}": not a preset (${clusterPresets().join(', ')}) nor a readable file`,
    );
  }
  return parseCluster(text, nameOrPath);
};
