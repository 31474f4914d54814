import type { IssueLog } from './issues.ts';

/** A decimal number as traces write them: `12`, `-1.000000`, `4.5e3`. Rejects blanks, hex, `NaN`, `inf`. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `YYYY-MM-DD HH:MM:SS` (a `T` separator and fractional seconds are accepted too). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)$/;

export const parseDecimal = (raw: string): number | undefined => {
  const s = raw.trim();
  return DECIMAL.test(s) ? Number(s) : undefined;
};

/** Seconds since the Unix epoch of a `YYYY-MM-DD HH:MM:SS` time read as UTC; undefined when not a real date-time. */
export const parseDateTimeUtc = (raw: string): number | undefined => {
  const m = DATE_TIME.exec(raw.trim());
  if (m === null) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = Number(m[6]);
  const ms = Date.UTC(year, month - 1, day, hour, minute, Math.floor(second));
  const d = new Date(ms);
  // Date.UTC rolls 2017-02-30 over to March; a real date survives the round trip unchanged.
  const valid =
    d.getUTCFullYear() === year &&
    d.getUTCMonth() === month - 1 &&
    d.getUTCDate() === day &&
    d.getUTCHours() === hour &&
    d.getUTCMinutes() === minute &&
    second < 60;
  return valid ? ms / 1000 + (second - Math.floor(second)) : undefined;
};

/**
 * Reads and validates the fields of one row. Every broken rule is logged as an issue for the row's
 * line and the field's name; `ok` turns false so the importer leaves the row out.
 */
export class FieldReader {
  ok = true;

  constructor(
    private readonly issues: IssueLog,
    private readonly line: number,
    private readonly value: (field: string) => string | undefined,
  ) {}

  fail(field: string | undefined, rule: string, got?: string): void {
    this.ok = false;
    this.issues.add(this.line, field, rule, got);
  }

  /** The trimmed value, or undefined when the column is absent or blank. */
  optionalText(field: string): string | undefined {
    const v = this.value(field)?.trim();
    return v === undefined || v === '' ? undefined : v;
  }

  text(field: string): string {
    const v = this.optionalText(field);
    if (v === undefined) this.fail(field, 'expected a non-empty value', this.value(field) ?? '');
    return v ?? '';
  }

  #number(
    field: string,
    rule: string,
    accept: (n: number) => boolean,
    optional: boolean,
  ): number | undefined {
    const raw = this.value(field) ?? '';
    if (optional && raw.trim() === '') return undefined;
    const n = parseDecimal(raw);
    if (n !== undefined && Number.isFinite(n) && accept(n)) return n;
    this.fail(field, rule, raw);
    return undefined;
  }

  number(field: string): number {
    return this.#number(field, 'expected a number', () => true, false) ?? Number.NaN;
  }

  positiveNumber(field: string): number {
    return this.#number(field, 'expected a positive number', (n) => n > 0, false) ?? Number.NaN;
  }

  nonNegativeNumber(field: string): number {
    return this.#number(field, 'expected a number ≥ 0', (n) => n >= 0, false) ?? Number.NaN;
  }

  optionalNonNegativeNumber(field: string): number | undefined {
    return this.#number(field, 'expected a number ≥ 0', (n) => n >= 0, true);
  }

  /** Integer-valued numbers such as `4` or `4.0` (PAI writes counts as floats). */
  positiveInteger(field: string): number {
    return (
      this.#number(field, 'expected a positive integer', (n) => Number.isInteger(n) && n > 0, false) ??
      Number.NaN
    );
  }

  optionalPositiveInteger(field: string): number | undefined {
    return this.#number(field, 'expected a positive integer', (n) => Number.isInteger(n) && n > 0, true);
  }

  nonNegativeInteger(field: string): number {
    return (
      this.#number(field, 'expected an integer ≥ 0', (n) => Number.isInteger(n) && n >= 0, false) ??
      Number.NaN
    );
  }

  /** Seconds since the epoch (UTC) of a `YYYY-MM-DD HH:MM:SS` value. */
  dateTime(field: string): number {
    const raw = this.value(field) ?? '';
    const t = parseDateTimeUtc(raw);
    if (t === undefined) this.fail(field, 'expected a date-time YYYY-MM-DD HH:MM:SS', raw);
    return t ?? Number.NaN;
  }

  optionalDateTime(field: string): number | undefined {
    const raw = this.value(field) ?? '';
    return raw.trim() === '' ? undefined : this.dateTime(field);
  }

  oneOf<T extends string>(field: string, allowed: readonly T[]): T {
    const raw = (this.value(field) ?? '').trim();
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.fail(field, `expected one of ${allowed.join(', ')}`, raw);
    return allowed[0] as T;
  }
}
