import { TraceFormatError } from './types.ts';

/** How much of the start of a file is inspected to tell text from binary. */
const SNIFF_CHARS = 8192;

/**
 * Throws a `TraceFormatError` when `text` cannot be a text trace at all: empty, or binary (NUL bytes
 * or many undecodable characters, e.g. a .gz or .tar file read as UTF-8).
 */
export const assertTraceText = (text: string, fileName: string, expected: string): void => {
  if (text.trim() === '') throw new TraceFormatError(`${fileName}: file is empty; expected ${expected}`);
  const head = text.slice(0, SNIFF_CHARS);
  const nul = head.indexOf('\u0000');
  let odd = 0;
  for (const ch of head) {
    const code = ch.codePointAt(0) ?? 0;
    if (code === 0xfffd || (code < 0x20 && ch !== '\t' && ch !== '\n' && ch !== '\r')) odd += 1;
  }
  if (nul >= 0 || odd > head.length / 100) {
    throw new TraceFormatError(
      `${fileName}: looks like a binary file (${nul >= 0 ? `NUL byte at offset ${nul}` : `${odd} control or undecodable characters`}); ` +
        `expected ${expected}. Decompress archives (.gz, .tar) first.`,
    );
  }
};

export interface TextLine {
  /** 1-based line number. */
  line: number;
  text: string;
}

/** Non-blank physical lines with their line numbers (a leading BOM is dropped). */
export const nonBlankLines = (text: string): TextLine[] => {
  const lines = text.replace(/^\ufeff/, '').split(/\r\n|\n|\r/);
  const out: TextLine[] = [];
  lines.forEach((t, i) => {
    if (t.trim() !== '') out.push({ line: i + 1, text: t });
  });
  return out;
};

/** The first non-blank line, shortened for error messages. */
export const firstLinePreview = (text: string, max = 120): string => {
  const first = nonBlankLines(text.slice(0, 64 * 1024))[0]?.text ?? '';
  return first.length > max ? `${first.slice(0, max)}…` : first;
};
