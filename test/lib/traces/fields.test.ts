import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDateTimeUtc, parseDecimal } from '../../../lib/traces/fields.ts';

describe('parseDateTimeUtc', () => {
  test('reads YYYY-MM-DD HH:MM:SS as UTC seconds', () => {
    assert.equal(parseDateTimeUtc('1970-01-02 00:00:01'), 86_401);
    assert.equal(parseDateTimeUtc('2017-10-09 07:01:55'), Date.UTC(2017, 9, 9, 7, 1, 55) / 1000);
    assert.equal(parseDateTimeUtc('2020-02-29T23:59:59.5'), Date.UTC(2020, 1, 29, 23, 59, 59) / 1000 + 0.5);
  });

  test('rejects impossible dates and other shapes', () => {
    for (const bad of [
      '2017-02-29 00:00:00',
      '2017-13-01 00:00:00',
      '2017-10-09 24:00:00',
      '2017-10-09 10:60:00',
      '2017/10/09 10:00:00',
      '1507532515',
      '',
    ])
      assert.equal(parseDateTimeUtc(bad), undefined, bad);
  });
});

describe('parseDecimal', () => {
  test('reads decimal numbers only', () => {
    assert.equal(parseDecimal(' -1.000000 '), -1);
    assert.equal(parseDecimal('4.5e3'), 4500);
    assert.equal(parseDecimal('.5'), 0.5);
    for (const bad of ['', ' ', '0x10', 'NaN', 'inf', '1,5', '12abc'])
      assert.equal(parseDecimal(bad), undefined, bad);
  });
});
