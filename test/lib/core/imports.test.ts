// lib/core's import directions (../shared/DESIGN.md §2): the core imports nothing outside itself but zod and highs;
// model, catalog, perf and solvers know no stage; the framework knows no paper; a paper's plugin imports the layers
// below it and only the other plugins listed here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const CORE = 'lib/core/';

/** Which other plugins each plugin may import (a plugin not listed may import none). */
const PLUGIN_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  crius: ['baselines'],
  easyscale: ['baselines'],
  elasticflow: ['baselines'],
  gavel: ['baselines', 'tesserae'],
  tesserae: ['baselines'],
  tessera: ['baselines', 'crius', 'dally', 'easyscale', 'tesserae'],
};

/**
 * Type-only imports from a lower layer into a plugin: SchedulerState names each paper's state slice, and a Demand
 * may carry an EasyScale plan.
 */
const TYPE_EXCEPTIONS: readonly { readonly from: string; readonly to: RegExp }[] = [
  { from: 'lib/core/model/state.ts', to: /^lib\/core\/plugins\/[^/]+\/(state|memory)\.ts$/ },
  { from: 'lib/core/framework/stages.ts', to: /^lib\/core\/plugins\/easyscale\/demand\.ts$/ },
];

const LOWER = ['model', 'catalog', 'perf', 'solvers'];
const PACKAGES = new Set(['zod', 'highs']);

interface Import {
  readonly file: string;
  readonly target: string;
  readonly typeOnly: boolean;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });

/** Every import and re-export of lib/core: the repository path of a relative one, the package name otherwise. */
const coreImports = (): Import[] =>
  sourceFiles(join(ROOT, CORE)).flatMap((path) => {
    const text = readFileSync(path, 'utf8');
    const file = relative(ROOT, path);
    const found = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?[^;'"]*?\bfrom\s*'([^']+)'/g),
      ...text.matchAll(/(?:^|\n)\s*import\s+()'([^']+)'/g),
      ...text.matchAll(/\bimport\(\s*()'([^']+)'\s*\)/g),
    ];
    return found.map((m) => {
      const spec = m[2]!;
      const target = spec.startsWith('.') ? relative(ROOT, resolve(dirname(path), spec)) : spec;
      return { file, target, typeOnly: Boolean(m[1]) };
    });
  });

/** `model`, `framework`, `plugins/crius`, `policies.ts`, …: the part of the core a file belongs to. */
const areaOf = (path: string): string => {
  const rest = path.slice(CORE.length);
  const [first, second] = rest.split('/');
  return first === 'plugins' && second ? `plugins/${second}` : first!;
};

const excepted = (i: Import): boolean =>
  i.typeOnly && TYPE_EXCEPTIONS.some((e) => e.from === i.file && e.to.test(i.target));

describe('lib/core import directions', () => {
  const imports = coreImports();

  test('the core imports only itself, zod and highs', () => {
    const outside = imports.filter(({ target }) => !target.startsWith(CORE) && !PACKAGES.has(target));
    assert.deepEqual(outside, []);
  });

  test('model, catalog, perf and solvers import no framework, plugin or policy', () => {
    const upward = imports.filter(
      (i) =>
        LOWER.includes(areaOf(i.file)) &&
        i.target.startsWith(CORE) &&
        !LOWER.includes(areaOf(i.target)) &&
        !excepted(i),
    );
    assert.deepEqual(upward, []);
  });

  test('the framework imports no plugin and no policy', () => {
    const upward = imports.filter(
      (i) =>
        areaOf(i.file) === 'framework' &&
        i.target.startsWith(CORE) &&
        (areaOf(i.target).startsWith('plugins/') || areaOf(i.target) === 'policies.ts') &&
        !excepted(i),
    );
    assert.deepEqual(upward, []);
  });

  test('a plugin imports another plugin only where PLUGIN_DEPENDENCIES says, and never the registry', () => {
    const stray = imports.filter((i) => {
      const from = areaOf(i.file);
      const to = i.target.startsWith(CORE) ? areaOf(i.target) : '';
      if (!from.startsWith('plugins/') || from === to) return false;
      if (to === 'policies.ts') return true;
      if (!to.startsWith('plugins/')) return false;
      return !(PLUGIN_DEPENDENCIES[from.slice('plugins/'.length)] ?? []).includes(
        to.slice('plugins/'.length),
      );
    });
    assert.deepEqual(stray, []);
  });

  test('the checks see the imports (a plugin importing the framework is found)', () => {
    assert.ok(imports.some((i) => i.file.startsWith(`${CORE}plugins/`) && areaOf(i.target) === 'framework'));
    assert.ok(imports.some((i) => i.file === `${CORE}model/state.ts` && i.typeOnly));
  });
});
