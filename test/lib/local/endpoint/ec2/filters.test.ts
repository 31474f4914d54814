import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ec2Error } from '../../../../../lib/local/endpoint/ec2/errors.ts';
import { globToRegExp, matchesFilters } from '../../../../../lib/local/endpoint/ec2/filters.ts';

test('filter values are globs: * any run, ? one character, backslash escapes', () => {
  assert.ok(globToRegExp('p4d.*').test('p4d.24xlarge'));
  assert.ok(!globToRegExp('p4d.*').test('p4de.24xlarge'));
  assert.ok(globToRegExp('pool-?').test('pool-1'));
  assert.ok(!globToRegExp('pool-?').test('pool-10'));
  assert.ok(globToRegExp('a\\*b').test('a*b'));
  assert.ok(!globToRegExp('a\\*b').test('axb'));
});

test('filters AND together, values OR together, unknown filter names are rejected', () => {
  const fields = (name: string) => ({ 'instance-type': ['p3.2xlarge'], 'tag:pool': ['a', 'b'] })[name];
  assert.ok(
    matchesFilters(
      [
        { name: 'instance-type', values: ['p3.*', 'g5.*'] },
        { name: 'tag:pool', values: ['b'] },
      ],
      fields,
    ),
  );
  assert.ok(
    !matchesFilters(
      [
        { name: 'instance-type', values: ['p3.*'] },
        { name: 'tag:pool', values: ['c'] },
      ],
      fields,
    ),
  );
  assert.throws(
    () => matchesFilters([{ name: 'owner', values: ['x'] }], fields),
    (e: Error) => e instanceof Ec2Error && e.code === 'InvalidParameterValue' && /'owner'/.test(e.message),
  );
});
