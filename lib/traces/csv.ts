import { parse } from 'csv-parse/sync';
import type { IssueLog } from './issues.ts';
import { nonBlankLines } from './text.ts';
import { TraceFormatError } from './types.ts';

/** One CSV record and the (1-based) line it ends on. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

interface InfoRecord {
  record: string[];
  info: { lines: number };
}

const OPTIONS = {
  info: true,
  relax_column_count: true,
  relax_quotes: true,
  skip_empty_lines: true,
  bom: true,
} as const;

/**
 * Splits CSV text into records with line numbers. The whole text is parsed in one pass; if that
 * fails on a CSV syntax error (an unclosed quote swallows the rest of the file), the text is parsed
 * line by line instead so only the broken lines are lost, each reported in `issues`. None of the
 * supported trace formats has fields spanning lines, so the per-line pass is exact for them.
 */
export const readCsvRecords = (text: string, issues: IssueLog): CsvRecord[] => {
  try {
    return (parse(text, OPTIONS) as InfoRecord[]).map((r) => ({ line: r.info.lines, fields: r.record }));
  } catch {
    const records: CsvRecord[] = [];
    for (const { line, text: lineText } of nonBlankLines(text)) {
      try {
        const [fields] = parse(lineText, { relax_column_count: true, relax_quotes: true }) as string[][];
        if (fields !== undefined) records.push({ line, fields });
      } catch (error) {
        const reason = error instanceof Error ? error.message.split(':')[0] : 'unreadable';
        issues.add(line, undefined, `malformed CSV (${reason})`, lineText);
      }
    }
    return records;
  }
};

/** A data row of a CSV file with a header: values by column name. */
export interface CsvRow {
  line: number;
  values: ReadonlyMap<string, string>;
}

export interface HeaderSpec {
  /** Human name of the format, for messages ("a Philly job list"). */
  what: string;
  required: readonly string[];
  /** The header a well-formed file has, shown when the header is wrong. */
  example: string;
}

/**
 * Parses a CSV with a header row. Throws a `TraceFormatError` when required columns are missing;
 * rows with a different number of fields than the header become issues and are left out.
 */
export const readHeaderedCsv = (
  text: string,
  fileName: string,
  spec: HeaderSpec,
  issues: IssueLog,
): { columns: string[]; rows: CsvRow[] } => {
  const [header, ...records] = readCsvRecords(text, issues);
  if (header === undefined) throw new TraceFormatError(`${fileName}: no header row; expected ${spec.what}`);
  const columns = header.fields.map((c) => c.trim());
  const missing = spec.required.filter((c) => !columns.includes(c));
  if (missing.length > 0) {
    throw new TraceFormatError(
      `${fileName}:${header.line}: not ${spec.what}: header lacks column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ` +
        `(header is "${columns.join(',')}"; expected "${spec.example}")`,
    );
  }
  const rows: CsvRow[] = [];
  for (const record of records) {
    if (record.fields.length !== columns.length) {
      issues.add(
        record.line,
        undefined,
        `expected ${columns.length} fields as in the header`,
        record.fields.join(','),
      );
      continue;
    }
    rows.push({ line: record.line, values: new Map(columns.map((c, i) => [c, record.fields[i] ?? ''])) });
  }
  return { columns, rows };
};

/** Values of the columns an importer does not map to `TraceJob` fields, kept as labels (blank ones dropped). */
export const extraLabels = (row: CsvRow, mapped: readonly string[]): Record<string, string> => {
  const labels: Record<string, string> = {};
  for (const [column, value] of row.values) {
    if (!mapped.includes(column) && value.trim() !== '') labels[column] = value.trim();
  }
  return labels;
};
