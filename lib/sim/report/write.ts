import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PolicyRun, Workload } from '../run.ts';
import { renderCsv } from './csv.ts';
import { renderHtml } from './html.ts';
import { reportMeta } from './meta.ts';
import { renderSummaryJson } from './summary-json.ts';

export interface ReportFiles {
  /** Absolute paths of the files written. */
  readonly html: string;
  readonly csv: string;
  readonly json: string;
}

/**
 * Write `report.html`, `jobs.csv` and `summary.json` into `dir` (created with its parents if missing; existing
 * files of those names are replaced). The timestamp in the page is taken here, the only impure part.
 */
export const writeReport = (
  dir: string,
  workload: Workload,
  runs: readonly PolicyRun[],
  now: Date = new Date(),
): ReportFiles => {
  const root = resolve(dir);
  try {
    mkdirSync(root, { recursive: true });
  } catch (error) {
    throw new Error(`report: cannot create directory ${root}: ${(error as Error).message}`, { cause: error });
  }
  const files: ReportFiles = {
    html: resolve(root, 'report.html'),
    csv: resolve(root, 'jobs.csv'),
    json: resolve(root, 'summary.json'),
  };
  const contents: [string, string][] = [
    [files.html, renderHtml(reportMeta(workload, now.toISOString().replace(/\.\d+Z$/, 'Z')), runs)],
    [files.csv, renderCsv(runs)],
    [files.json, renderSummaryJson(runs)],
  ];
  for (const [path, text] of contents) {
    try {
      writeFileSync(path, text);
    } catch (error) {
      throw new Error(`report: cannot write ${path}: ${(error as Error).message}`, { cause: error });
    }
  }
  return files;
};
