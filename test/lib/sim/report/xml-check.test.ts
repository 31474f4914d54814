import assert from 'node:assert/strict';
import { test } from 'node:test';
import { svgFragments, xmlProblems } from './xml-check.ts';

// The report tests lean on this checker, so it must itself reject what it is meant to catch.
test('xmlProblems accepts well-formed markup and rejects the usual mistakes', () => {
  assert.deepEqual(
    xmlProblems('<!DOCTYPE html><p class="a">x &amp; y<br><svg><path d="M0 0"/></svg></p>'),
    [],
  );
  assert.notDeepEqual(xmlProblems('<a><b></a>'), []);
  assert.notDeepEqual(xmlProblems('<a>'), []);
  assert.notDeepEqual(xmlProblems('<p>fish & chips</p>'), []);
  assert.notDeepEqual(xmlProblems('<p>1 > 0</p>'), []);
  assert.notDeepEqual(xmlProblems('<p title=unquoted>x</p>'), []);
  assert.notDeepEqual(xmlProblems('<p title="a"b">x</p>'), []);
});

test('svgFragments finds each inline SVG', () => {
  assert.deepEqual(svgFragments('<p><svg a="1"><g></g></svg> and <svg></svg></p>'), [
    '<svg a="1"><g></g></svg>',
    '<svg></svg>',
  ]);
});
