import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertTraceText, nonBlankLines } from '../../../lib/traces/text.ts';
import { TraceFormatError } from '../../../lib/traces/types.ts';

describe('assertTraceText', () => {
  test('accepts text with tabs and CRLF line ends', () => {
    assert.doesNotThrow(() => assertTraceText('a\tb\r\nc\td\r\n', 'x.trace', 'a trace'));
  });

  test('refuses empty and binary text with a message naming the file', () => {
    assert.throws(() => assertTraceText(' \n\n', 'e.csv', 'a Philly job list'), {
      name: 'TraceFormatError',
      message: 'e.csv: file is empty; expected a Philly job list',
    });
    assert.throws(
      () => assertTraceText('ab\u0000cd', 'b.bin', 'a trace'),
      /b\.bin: looks like a binary file \(NUL byte at offset 2\)/,
    );
    const undecodable = `x${'\ufffd'.repeat(20)}${'y'.repeat(100)}`;
    assert.throws(() => assertTraceText(undecodable, 'u.csv', 'a trace'), TraceFormatError);
  });
});

describe('nonBlankLines', () => {
  test('numbers lines from 1, skipping blank ones and a BOM', () => {
    assert.deepEqual(nonBlankLines('\ufeffa\r\n\r\nb\n  \nc'), [
      { line: 1, text: 'a' },
      { line: 3, text: 'b' },
      { line: 5, text: 'c' },
    ]);
  });
});
