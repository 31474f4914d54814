import { buildTrace, IdRegistry, type ParsedJob, traceNameOf } from './build.ts';
import { type CsvRow, type HeaderSpec, readHeaderedCsv } from './csv.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { assertTraceText } from './text.ts';
import type { Trace, TraceFormat, TraceJob } from './types.ts';

export interface KeyedCsvFormat {
  readonly format: TraceFormat;
  readonly header: HeaderSpec;
  /** Column holding each job's id, unique in the file. */
  readonly idColumn: string;
  /** Reads the rest of a row's job; issues go through `f` (rows with any are left out). */
  readonly readJob: (f: FieldReader, row: CsvRow) => Omit<TraceJob, 'id'>;
}

/**
 * A headered CSV with one job per row and an id column (Tiresias, Pollux/Sia): the header check, per-field issues,
 * duplicate ids and trace building, shared; each format says only how a row becomes a job.
 */
export const parseKeyedCsv = (text: string, fileName: string, spec: KeyedCsvFormat): Trace => {
  assertTraceText(text, fileName, spec.header.what);
  const issues = new IssueLog(fileName);
  const { rows } = readHeaderedCsv(text, fileName, spec.header, issues);
  const ids = new IdRegistry(issues);
  const parsed: ParsedJob[] = [];
  for (const row of rows) {
    const f = new FieldReader(issues, row.line, (c) => row.values.get(c));
    const id = f.text(spec.idColumn);
    const job = spec.readJob(f, row);
    if (!f.ok || !ids.claim(id, row.line, spec.idColumn)) continue;
    parsed.push({ line: row.line, job: { id, ...job } });
  }
  return buildTrace(traceNameOf(fileName), spec.format, fileName, parsed, issues.list());
};
