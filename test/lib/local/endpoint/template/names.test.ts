import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatedName, NAME_RULES } from '../../../../../lib/local/endpoint/template/names.ts';

test('generated names are <stack>-<logicalId>, with .fifo for FIFO queues', () => {
  assert.equal(generatedName('Tessera', 'JobsTable1A2B', NAME_RULES.table), 'Tessera-JobsTable1A2B');
  assert.equal(generatedName('Tessera', 'Events', NAME_RULES.fifoQueue), 'Tessera-Events.fifo');
});

test('characters a service forbids are replaced', () => {
  assert.equal(generatedName('my stack', 'Q', NAME_RULES.queue), 'my-stack-Q');
});

test('over-long names are shortened deterministically, keeping the limit and uniqueness', () => {
  const long = 'X'.repeat(100);
  const a = generatedName('Tessera', `${long}A`, NAME_RULES.fifoQueue);
  const b = generatedName('Tessera', `${long}B`, NAME_RULES.fifoQueue);
  assert.equal(a.length, 80);
  assert.ok(a.endsWith('.fifo'));
  assert.notEqual(a, b);
  assert.equal(generatedName('Tessera', `${long}A`, NAME_RULES.fifoQueue), a);
  assert.ok(generatedName('Tessera', long, NAME_RULES.rule).length <= 64);
});
