import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PolluxApplicationCurves, PolluxCurve } from '../traces/pollux-work.ts';
import { readCsv } from './files.ts';
import { POLLUX_DIR } from './pollux.ts';

const VALIDATION = /^validation-(\d+)\.csv$/;

/** Reads one application's training curves, `pollux/<app>/validation-<batch size>.csv`. */
export const loadPolluxCurves = (appDir: string, application: string): PolluxApplicationCurves => {
  const curves: PolluxCurve[] = [];
  for (const name of readdirSync(appDir).sort()) {
    const match = VALIDATION.exec(name);
    if (!match) continue;
    const rows = readCsv(join(appDir, name), ['progress', 'grad_sqr', 'grad_var']);
    curves.push({
      batchSize: Number(match[1]),
      progress: rows.map((r) => r.number('progress', 'non-negative')),
      gradSqr: rows.map((r) => r.number('grad_sqr', 'non-negative')),
      gradVar: rows.map((r) => r.number('grad_var', 'non-negative')),
    });
  }
  return { application, curves };
};

/** Every application's curves under `<dataDir>/pollux/`, keyed by application; empty when the directory is absent. */
export const loadAllPolluxCurves = (dataDir: string): Map<string, PolluxApplicationCurves> => {
  const root = join(dataDir, POLLUX_DIR);
  const out = new Map<string, PolluxApplicationCurves>();
  if (!existsSync(root)) return out;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory()) out.set(entry.name, loadPolluxCurves(join(root, entry.name), entry.name));
  }
  return out;
};
