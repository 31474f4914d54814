import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeXml } from '../../../../lib/sim/report/escape.ts';

test('escapeXml escapes markup characters and drops control characters XML forbids', () => {
  assert.equal(
    escapeXml(`<a href="x">Tom & Jerry's</a>`),
    '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
  );
  assert.equal(escapeXml('bell\u0007 tab\t nl\n'), 'bell tab\t nl\n');
  assert.equal(escapeXml('already &amp;'), 'already &amp;amp;');
});
