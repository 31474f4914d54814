import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { watchFrameStart } from '../../../lib/cli/watch-frame.ts';

describe('watchFrameStart', () => {
  test('a terminal is cleared before every frame', () => {
    assert.equal(watchFrameStart(true, true), '\x1b[2J\x1b[H');
    assert.equal(watchFrameStart(true, false), '\x1b[2J\x1b[H');
  });

  test('a file or pipe gets no escape codes, frames separated by a blank line', () => {
    assert.equal(watchFrameStart(false, true), '');
    assert.equal(watchFrameStart(false, false), '\n');
  });
});
