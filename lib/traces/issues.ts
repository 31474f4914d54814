import type { TraceIssue } from './types.ts';

/**
 * How many rows breaking the same rule on the same field are listed one by one. Real traces can hold
 * millions of rows left out for one reason (Helios's CPU-only jobs); past this many, the rest are
 * counted in one summary issue so the list stays readable and memory stays bounded.
 */
export const ISSUES_LISTED_PER_RULE = 100;

interface Overflow {
  field: string | undefined;
  rule: string;
  count: number;
  firstLine: number;
  lastLine: number;
}

/** Collects the issues of one file. */
export class IssueLog {
  readonly #issues: TraceIssue[] = [];
  readonly #perRule = new Map<string, number>();
  readonly #overflow = new Map<string, Overflow>();

  constructor(
    readonly file: string,
    readonly listedPerRule = ISSUES_LISTED_PER_RULE,
  ) {}

  /**
   * Records a row problem. `rule` is the rule broken ("expected a positive integer"); `got`, when
   * given, is the offending raw value and is quoted after it.
   */
  add(line: number, field: string | undefined, rule: string, got?: string): void {
    const key = `${field ?? ''}\u0000${rule}`;
    const seen = this.#perRule.get(key) ?? 0;
    this.#perRule.set(key, seen + 1);
    if (seen < this.listedPerRule) {
      const message = got === undefined ? rule : `${rule}, got ${JSON.stringify(got)}`;
      this.#issues.push(
        field === undefined ? { file: this.file, line, message } : { file: this.file, line, field, message },
      );
      return;
    }
    const overflow = this.#overflow.get(key);
    if (overflow === undefined) {
      this.#overflow.set(key, { field, rule, count: 1, firstLine: line, lastLine: line });
    } else {
      overflow.count += 1;
      overflow.firstLine = Math.min(overflow.firstLine, line);
      overflow.lastLine = Math.max(overflow.lastLine, line);
    }
  }

  /** The issues in line order (a line's issues in the order found), summaries of over-full rules last. */
  list(): TraceIssue[] {
    const summaries: TraceIssue[] = [...this.#overflow.values()].map((o) => {
      const message = `${o.rule}: ${o.count} more row${o.count === 1 ? '' : 's'} like this (lines ${o.firstLine}–${o.lastLine}) not listed one by one`;
      return o.field === undefined
        ? { file: this.file, line: o.firstLine, message }
        : { file: this.file, line: o.firstLine, field: o.field, message };
    });
    return [...[...this.#issues].sort((a, b) => a.line - b.line), ...summaries];
  }
}
