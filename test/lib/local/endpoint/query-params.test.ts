import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQueryParams, QueryParamError } from '../../../../lib/local/endpoint/query-params.ts';

test('rebuilds nested structures and 1-based lists in index order', () => {
  const params = parseQueryParams(
    [
      'Action=RunInstances',
      'TagSpecification.1.ResourceType=instance',
      'TagSpecification.1.Tag.2.Key=b',
      'TagSpecification.1.Tag.2.Value=2',
      'TagSpecification.1.Tag.1.Key=a',
      'TagSpecification.1.Tag.1.Value=1%20%26%20more',
      'LaunchTemplate.LaunchTemplateName=tessera-p4d',
      'InstanceId.10=i-10',
      'InstanceId.2=i-2',
    ].join('&'),
  );
  assert.equal(params.text('Action'), 'RunInstances');
  assert.equal(params.text('LaunchTemplate.LaunchTemplateName'), 'tessera-p4d');
  const [spec] = params.list('TagSpecification');
  assert.equal(spec?.text('ResourceType'), 'instance');
  assert.deepEqual(
    spec?.list('Tag').map((t) => [t.text('Key'), t.text('Value')]),
    [
      ['a', '1 & more'],
      ['b', '2'],
    ],
  );
  assert.deepEqual(params.texts('InstanceId'), ['i-2', 'i-10']);
  assert.deepEqual(params.list('Missing'), []);
});

test('typed readers reject malformed values naming the parameter', () => {
  const params = parseQueryParams('MinCount=two&DryRun=yes&MaxCount=3&Flag=true');
  assert.equal(params.int('MaxCount'), 3);
  assert.equal(params.bool('Flag'), true);
  assert.equal(params.int('Absent'), undefined);
  assert.throws(
    () => params.int('MinCount'),
    (e: Error) => e instanceof QueryParamError && /MinCount/.test(e.message),
  );
  assert.throws(() => params.bool('DryRun'), /DryRun: expected true or false/);
});
