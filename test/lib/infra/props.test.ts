import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidContextError, instanceTypesOf, settingsFromContext } from '../../../lib/infra/props.ts';

const from = (values: Record<string, unknown>) => settingsFromContext((key) => values[key]);

describe('settingsFromContext', () => {
  test('defaults for an empty context', () => {
    assert.deepEqual(from({}), {
      clusterName: 'tessera',
      instanceFamilies: ['g5'],
      roundIntervalMinutes: 1,
      budgetPerHour: 10,
      capacityType: 'spot',
      maxInstances: 4,
      idleCooldownMinutes: 10,
      policy: 'tessera',
      checkpointRetentionDays: 30,
      logRetentionDays: 30,
      keepLegacyChangeIndex: false,
    });
  });

  test('accepts -c strings and cdk.json values alike', () => {
    const s = from({
      'tessera:instanceFamilies': 'g5, p4d',
      'tessera:budgetPerHour': '42.5',
      'tessera:capacityType': 'on-demand',
    });
    assert.deepEqual(s.instanceFamilies, ['g5', 'p4d']);
    assert.equal(s.budgetPerHour, 42.5);
    assert.equal(s.capacityType, 'on-demand');
    assert.deepEqual(from({ 'tessera:instanceFamilies': ['g6'] }).instanceFamilies, ['g6']);
    assert.equal(from({ 'tessera:keepLegacyChangeIndex': 'true' }).keepLegacyChangeIndex, true);
    assert.equal(from({ 'tessera:keepLegacyChangeIndex': false }).keepLegacyChangeIndex, false);
  });

  test('bad values name the context key and the rule', () => {
    const error = (values: Record<string, unknown>) => {
      try {
        from(values);
      } catch (e) {
        assert.ok(e instanceof InvalidContextError);
        return e.message;
      }
      assert.fail('expected an error');
    };
    assert.match(
      error({ 'tessera:capacityType': 'cheap' }),
      /tessera:capacityType: must be spot or on-demand/,
    );
    assert.match(
      error({ 'tessera:instanceFamilies': 'g5,z9' }),
      /tessera:instanceFamilies\.1: must name EC2 GPU families/,
    );
    assert.match(error({ 'tessera:budgetPerHour': '-3' }), /tessera:budgetPerHour: must not be negative/);
    assert.match(
      error({ 'tessera:roundIntervalMinutes': '0.5' }),
      /tessera:roundIntervalMinutes: must be a whole number/,
    );
    assert.match(error({ 'tessera:clusterName': 'Prod_1' }), /tessera:clusterName: must be 1-32 characters/);
    assert.match(error({ 'tessera:policy': 'magic' }), /tessera:policy: must be one of .*tessera/);
    assert.match(
      error({ 'tessera:keepLegacyChangeIndex': 'yes' }),
      /tessera:keepLegacyChangeIndex: must be true or false/,
    );
  });

  test('instance types of a family come from the catalog, fewest GPUs first', () => {
    assert.deepEqual(instanceTypesOf('p3'), ['p3.2xlarge', 'p3.8xlarge', 'p3.16xlarge']);
    assert.deepEqual(instanceTypesOf('p3dn'), ['p3dn.24xlarge']);
  });
});
