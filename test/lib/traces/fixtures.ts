import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file under `test/fixtures/traces/`. */
export const fixturePath = (name: string): string =>
  fileURLToPath(new URL(`../../fixtures/traces/${name}`, import.meta.url));

export const readFixture = (name: string): string => readFileSync(fixturePath(name), 'utf8');
