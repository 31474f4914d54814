import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { DataFileError } from './errors.ts';

/** Reads a text file; a missing or unreadable file becomes a DataFileError naming it. */
export const readDataFile = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataFileError(file, code === 'ENOENT' ? 'file not found' : `cannot read (${String(error)})`);
  }
};

/** One CSV data row with its 1-based line number and typed field accessors that report the file, line and column. */
export class CsvRow {
  constructor(
    readonly file: string,
    readonly line: number,
    private readonly record: Readonly<Record<string, string>>,
  ) {}

  text(column: string): string {
    const value = this.record[column];
    if (value === undefined) throw new DataFileError(this.file, `missing column "${column}"`, this.line);
    return value.trim();
  }

  number(column: string, rule: 'positive' | 'non-negative' | 'positive integer'): number {
    const raw = this.text(column);
    const value = Number(raw);
    const ok =
      raw !== '' &&
      Number.isFinite(value) &&
      (rule === 'non-negative' ? value >= 0 : value > 0) &&
      (rule !== 'positive integer' || Number.isInteger(value));
    if (!ok)
      throw new DataFileError(
        this.file,
        `column "${column}" must be a ${rule} number, got "${raw}"`,
        this.line,
      );
    return value;
  }

  fail(detail: string): never {
    throw new DataFileError(this.file, detail, this.line);
  }
}

interface InfoRecord {
  record: Record<string, string>;
  info: { lines: number };
}

/** Parses a CSV file with a header row; checks that the header has `required` columns. */
export const readCsv = (file: string, required: readonly string[]): CsvRow[] => {
  const text = readDataFile(file);
  let parsed: InfoRecord[];
  try {
    parsed = parse(text, { columns: true, skip_empty_lines: true, bom: true, info: true }) as InfoRecord[];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new DataFileError(file, `malformed CSV (${(error as Error).message})`, line);
  }
  const header = Object.keys(parsed[0]?.record ?? {});
  const missing = required.filter((c) => !header.includes(c));
  if (parsed.length > 0 && missing.length > 0) {
    throw new DataFileError(
      file,
      `header lacks column(s) ${missing.join(', ')}; expected ${required.join(',')}`,
      1,
    );
  }
  return parsed.map((r) => new CsvRow(file, r.info.lines, r.record));
};
