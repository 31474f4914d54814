import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type BuiltinSpec,
  BuiltinTraceNameError,
  buildBuiltinTrace,
  isBuiltinTraceName,
  parseBuiltinTraceName,
} from '../../../../lib/traces/generators/builtin.ts';
import { generateGavelTrace } from '../../../../lib/traces/generators/gavel.ts';
import { generateShockwaveTrace } from '../../../../lib/traces/generators/shockwave.ts';
import { parsePhilly } from '../../../../lib/traces/philly.ts';
import { readFixture } from '../fixtures.ts';

/** The spec of a name that must denote a generated workload. */
const generated = (name: string) => {
  const spec = parseBuiltinTraceName(name);
  assert.equal(spec.kind, 'generated');
  return spec as Extract<BuiltinSpec, { kind: 'generated' }>;
};

describe('parseBuiltinTraceName', () => {
  test('reads each form of the grammar', () => {
    assert.deepEqual(parseBuiltinTraceName('philly'), { kind: 'philly' });
    assert.deepEqual(parseBuiltinTraceName('gavel:900:80'), {
      kind: 'generated',
      name: 'gavel:900:80',
      jobs: 900,
      arrivals: { kind: 'poisson', ratePerHour: 80 },
      sizes: 'gavel',
    });
    assert.deepEqual(generated('shockwave:120:2.5').arrivals, {
      kind: 'poisson',
      ratePerHour: 2.5,
    });
    assert.equal(generated('poisson:400:20').sizes, 'philly');
    assert.equal(generated('poisson:400:20:shockwave').sizes, 'shockwave');
    assert.deepEqual(parseBuiltinTraceName('batch:500'), {
      kind: 'generated',
      name: 'batch:500',
      jobs: 500,
      arrivals: { kind: 'batch' },
      sizes: 'philly',
    });
  });

  test('errors name the bad part', () => {
    const cases: [string, RegExp][] = [
      ['gavel:abc:80', /^gavel:abc:80: <jobs> must be a positive integer, got "abc"/],
      ['gavel:0:80', /<jobs> must be a positive integer, got "0"/],
      ['shockwave:10:-3', /<rate> must be a positive number of jobs per hour, got "-3"/],
      ['gavel:10', /gavel takes 2 arguments, got 1/],
      ['philly:3', /philly takes 0 arguments, got 1/],
      ['batch:5:tiny', /<sizes> must be one of philly, gavel, shockwave, got "tiny"/],
      ['poisson:5:1:gavel:x', /poisson takes 2 or 3 arguments, got 4/],
    ];
    for (const [name, message] of cases) {
      assert.throws(
        () => parseBuiltinTraceName(name),
        (e: Error) => e instanceof BuiltinTraceNameError && message.test(e.message),
        name,
      );
    }
  });

  test('tells builtin names from file paths', () => {
    assert.ok(isBuiltinTraceName('philly'));
    assert.ok(isBuiltinTraceName('gavel:oops'));
    assert.ok(!isBuiltinTraceName('traces/philly.csv'));
    assert.ok(!isBuiltinTraceName('./philly'));
  });
});

describe('buildBuiltinTrace', () => {
  const philly = parsePhilly(readFixture('philly-jobs.csv'), 'philly-jobs.csv');

  test('gavel and shockwave builtins equal the generators', () => {
    assert.deepEqual(
      buildBuiltinTrace(parseBuiltinTraceName('gavel:30:80'), { seed: 9 }),
      generateGavelTrace({ jobs: 30, ratePerHour: 80, seed: 9 }),
    );
    assert.deepEqual(
      buildBuiltinTrace(parseBuiltinTraceName('shockwave:30:80'), { seed: 9 }),
      generateShockwaveTrace({ jobs: 30, ratePerHour: 80, seed: 9 }),
    );
  });

  test('philly returns the list; poisson and batch draw Philly sizes by default', () => {
    assert.equal(buildBuiltinTrace({ kind: 'philly' }, { seed: 0, philly }), philly);
    const batch = buildBuiltinTrace(parseBuiltinTraceName('batch:40'), { seed: 1, philly, maxGpus: 4 });
    const pairs = new Set(philly.jobs.map((j) => `${j.gpus}x${j.duration}`));
    assert.equal(batch.jobs.length, 40);
    assert.ok(
      batch.jobs.every((j) => j.submitTime === 0 && j.gpus <= 4 && pairs.has(`${j.gpus}x${j.duration}`)),
    );
    assert.throws(
      () => buildBuiltinTrace(parseBuiltinTraceName('poisson:5:10'), { seed: 1 }),
      /needs the Philly trace/,
    );
  });
});
