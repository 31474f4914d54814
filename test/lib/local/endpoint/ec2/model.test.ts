import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ec2Error } from '../../../../../lib/local/endpoint/ec2/errors.ts';
import { Ec2Model, type Ec2ModelConfig, zoneIdFor } from '../../../../../lib/local/endpoint/ec2/model.ts';
import { DEFAULT_TOPOLOGY_LAYOUT } from '../../../../../lib/local/endpoint/ec2/topology.ts';
import type { RunInstancesRequest } from '../../../../../lib/local/endpoint/ec2/types.ts';

const T0 = Date.parse('2030-01-01T00:00:00Z');

function model(overrides: Partial<Ec2ModelConfig> = {}): Ec2Model {
  return new Ec2Model({
    region: 'us-east-1',
    accountId: '000000000000',
    pendingMs: 1000,
    shuttingDownMs: 500,
    terminatedRetentionMs: 60_000,
    topology: DEFAULT_TOPOLOGY_LAYOUT,
    ...overrides,
  });
}

const launch = (extra: Partial<RunInstancesRequest> = {}): RunInstancesRequest => ({
  minCount: 1,
  maxCount: 1,
  imageId: 'ami-1',
  instanceType: 'p3.16xlarge',
  ...extra,
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof Ec2Error, `expected an Ec2Error, got ${error}`);
    return error.code;
  }
  return assert.fail('expected an Ec2Error');
}

describe('Ec2Model', () => {
  test('instances go pending → running after pendingMs, and shutting-down → terminated after shuttingDownMs', () => {
    const m = model();
    const { view, notifications } = m.runInstances(launch({ minCount: 2, maxCount: 2 }), T0);
    const ids = view.instances.map((i) => i.instanceId);
    assert.deepEqual(ids, ['i-00000000000000001', 'i-00000000000000002']);
    assert.deepEqual(
      notifications.map((n) => [n.instanceId, n.kind === 'state-change' && n.state]),
      ids.map((id) => [id, 'pending']),
    );
    assert.equal(m.nextDueAt(), T0 + 1000);
    assert.deepEqual(m.advance(T0 + 999), []);
    assert.deepEqual(
      m.advance(T0 + 1000).map((n) => n.kind === 'state-change' && n.state),
      ['running', 'running'],
    );
    const { changes } = m.terminateInstances([ids[0]!], T0 + 2000);
    assert.deepEqual(changes, [
      { instanceId: ids[0], previousState: 'running', currentState: 'shutting-down' },
    ]);
    const events = m.advance(T0 + 2500);
    assert.deepEqual(events, [
      { kind: 'state-change', instanceId: ids[0], state: 'terminated', at: T0 + 2500 },
    ]);
    // Terminating again is a no-op report, like EC2.
    assert.deepEqual(m.terminateInstances([ids[0]!], T0 + 2600).changes[0], {
      instanceId: ids[0],
      previousState: 'terminated',
      currentState: 'terminated',
    });
    // Terminated instances are forgotten after the retention period.
    m.advance(T0 + 2500 + 60_000);
    assert.equal(
      code(() => m.describeInstances({ instanceIds: [ids[0]!] })),
      'InvalidInstanceID.NotFound',
    );
    assert.equal(m.describeInstances({ instanceIds: [ids[1]!] }).items[0]?.instances[0]?.state, 'running');
  });

  test('launch templates supply defaults, the request overrides them and tags merge', () => {
    const m = model();
    const template = m.createLaunchTemplate(
      {
        launchTemplateName: 'tessera-p3',
        data: {
          imageId: 'ami-template',
          instanceType: 'p3.8xlarge',
          tagSpecifications: [
            {
              resourceType: 'instance',
              tags: [
                { key: 'cluster', value: 'c1' },
                { key: 'pool', value: 'default' },
              ],
            },
          ],
        },
      },
      T0,
    );
    const { view } = m.runInstances(
      {
        minCount: 1,
        maxCount: 1,
        instanceType: 'p3.16xlarge',
        launchTemplate: { launchTemplateId: template.launchTemplateId },
        instanceMarketOptions: { marketType: 'spot' },
        tagSpecifications: [{ resourceType: 'instance', tags: [{ key: 'pool', value: 'spot' }] }],
      },
      T0,
    );
    const instance = view.instances[0]!;
    assert.equal(instance.imageId, 'ami-template');
    assert.equal(instance.instanceType, 'p3.16xlarge');
    assert.equal(instance.instanceLifecycle, 'spot');
    assert.match(instance.spotInstanceRequestId ?? '', /^sir-/);
    assert.deepEqual(instance.tags, [
      { key: 'cluster', value: 'c1' },
      { key: 'pool', value: 'spot' },
      { key: 'aws:ec2launchtemplate:id', value: template.launchTemplateId },
      { key: 'aws:ec2launchtemplate:version', value: '1' },
    ]);
    assert.equal(
      code(() =>
        m.runInstances(launch({ launchTemplate: { launchTemplateName: 'tessera-p3', version: '7' } }), T0),
      ),
      'InvalidLaunchTemplateId.VersionNotFound',
    );
    assert.equal(
      code(() =>
        m.runInstances(launch({ launchTemplate: { launchTemplateId: 'lt-00000000000000099' } }), T0),
      ),
      'InvalidLaunchTemplateId.NotFound',
    );
    assert.equal(
      code(() => m.createLaunchTemplate({ launchTemplateName: 'x', data: {} }, T0)),
      'InvalidLaunchTemplateName.MalformedException',
    );
  });

  test('validates RunInstances like EC2', () => {
    const m = model();
    assert.equal(
      code(() => m.runInstances({ minCount: 1, maxCount: 1 }, T0)),
      'MissingParameter',
    );
    assert.equal(
      code(() => m.runInstances(launch({ minCount: 3, maxCount: 2 }), T0)),
      'InvalidParameterValue',
    );
    assert.equal(
      code(() => m.runInstances(launch({ availabilityZone: 'eu-west-1a' }), T0)),
      'InvalidParameterValue',
    );
    assert.equal(
      code(() =>
        m.runInstances(
          launch({ tagSpecifications: [{ resourceType: 'instance', tags: [{ key: 'aws:x', value: '' }] }] }),
          T0,
        ),
      ),
      'InvalidParameterValue',
    );
    assert.equal(
      m.runInstances(launch({ instanceType: undefined }), T0).view.instances[0]?.instanceType,
      'm1.small',
    );
  });

  test('a client token makes RunInstances idempotent', () => {
    const m = model();
    const first = m.runInstances(launch({ clientToken: 'round-7-launch-0' }), T0);
    const retry = m.runInstances(launch({ clientToken: 'round-7-launch-0' }), T0 + 10);
    assert.equal(retry.view.reservation.reservationId, first.view.reservation.reservationId);
    assert.deepEqual(retry.notifications, []);
    assert.equal(m.listInstances().length, 1);
    assert.equal(
      code(() =>
        m.runInstances(launch({ clientToken: 'round-7-launch-0', instanceType: 'p4d.24xlarge' }), T0),
      ),
      'IdempotentParameterMismatch',
    );
  });

  test('capacity limits launch what fits and refuse below MinCount', () => {
    const m = model({ capacity: { 'p3.16xlarge': 3 } });
    assert.equal(m.runInstances(launch({ minCount: 1, maxCount: 2 }), T0).view.instances.length, 2);
    assert.equal(m.runInstances(launch({ minCount: 1, maxCount: 5 }), T0).view.instances.length, 1);
    assert.equal(
      code(() => m.runInstances(launch(), T0)),
      'InsufficientInstanceCapacity',
    );
    // Capacity frees up once an instance has terminated.
    const [first] = m.listInstances();
    m.terminateInstances([first!.instanceId], T0);
    m.advance(T0 + 1000);
    assert.equal(m.runInstances(launch(), T0 + 1000).view.instances.length, 1);
  });

  test('describeInstances filters by tag, state and globs, and paginates', () => {
    const m = model();
    for (let i = 0; i < 6; i++) {
      m.runInstances(
        launch({
          tagSpecifications: [{ resourceType: 'instance', tags: [{ key: 'pool', value: `pool-${i % 2}` }] }],
        }),
        T0,
      );
    }
    m.advance(T0 + 1000);
    m.terminateInstances(['i-00000000000000001'], T0 + 1000);
    const running = m.describeInstances({
      filters: [
        { name: 'tag:pool', values: ['pool-0'] },
        { name: 'instance-state-name', values: ['running'] },
      ],
    });
    assert.deepEqual(
      running.items.flatMap((r) => r.instances.map((i) => i.instanceId)),
      ['i-00000000000000003', 'i-00000000000000005'],
    );
    const globbed = m.describeInstances({ filters: [{ name: 'tag:pool', values: ['pool-?'] }] });
    assert.equal(globbed.items.length, 6);
    const page1 = m.describeInstances({ maxResults: 5 });
    assert.equal(page1.items.length, 5);
    const page2 = m.describeInstances({ maxResults: 5, nextToken: page1.nextToken! });
    assert.deepEqual(
      page2.items.map((r) => r.instances[0]?.instanceId),
      ['i-00000000000000006'],
    );
    assert.equal(page2.nextToken, undefined);
    assert.equal(
      code(() => m.describeInstances({ maxResults: 2 })),
      'InvalidParameterValue',
    );
    assert.equal(
      code(() => m.describeInstances({ instanceIds: ['i-00000000000000002'], maxResults: 5 })),
      'InvalidParameterCombination',
    );
    assert.equal(
      code(() => m.describeInstances({ instanceIds: ['i-123'] })),
      'InvalidInstanceID.Malformed',
    );
  });

  test('topology: running instances only, N per bottom node, three layers top first', () => {
    const m = model({
      topology: { instancesPerBottomNode: 2, bottomNodesPerMiddleNode: 2, middleNodesPerTopNode: 2 },
    });
    m.runInstances(launch({ minCount: 5, maxCount: 5 }), T0);
    assert.deepEqual(m.describeInstanceTopology({}).items, [], 'pending instances have no topology yet');
    m.advance(T0 + 1000);
    const nodes = m.describeInstanceTopology({}).items.map((t) => t.networkNodes);
    assert.deepEqual(nodes, [
      ['nn-10000000000000000', 'nn-20000000000000000', 'nn-30000000000000000'],
      ['nn-10000000000000000', 'nn-20000000000000000', 'nn-30000000000000000'],
      ['nn-10000000000000000', 'nn-20000000000000000', 'nn-30000000000000001'],
      ['nn-10000000000000000', 'nn-20000000000000000', 'nn-30000000000000001'],
      ['nn-10000000000000000', 'nn-20000000000000001', 'nn-30000000000000002'],
    ]);
    const [one] = m.describeInstanceTopology({ instanceIds: ['i-00000000000000005'] }).items;
    assert.equal(one?.zoneId, 'use1-az1');
    assert.equal(
      m.describeInstanceTopology({ filters: [{ name: 'instance-type', values: ['p4d.*'] }] }).items.length,
      0,
    );
  });

  test('spot interruption: warning now, shutdown after the notice, then terminated', () => {
    const m = model();
    const spot = m.runInstances(launch({ instanceMarketOptions: { marketType: 'spot' } }), T0).view
      .instances[0]!;
    const onDemand = m.runInstances(launch(), T0).view.instances[0]!;
    m.advance(T0 + 1000);
    assert.equal(
      code(() => m.interruptSpot(onDemand.instanceId, T0 + 1000, 0)),
      'UnsupportedOperation',
    );
    assert.deepEqual(m.interruptSpot(spot.instanceId, T0 + 1000, 2000), [
      {
        kind: 'spot-interruption-warning',
        instanceId: spot.instanceId,
        at: T0 + 1000,
        instanceAction: 'terminate',
      },
    ]);
    assert.deepEqual(
      m.advance(T0 + 3500).map((n) => n.kind === 'state-change' && n.state),
      ['shutting-down', 'terminated'],
    );
    const [after] = m.describeInstances({ instanceIds: [spot.instanceId] }).items[0]!.instances;
    assert.equal(after?.stateReason?.code, 'Server.SpotInstanceTermination');
  });

  test('createTags adds and overwrites tags on instances and launch templates', () => {
    const m = model();
    const id = m.runInstances(launch(), T0).view.instances[0]!.instanceId;
    m.createTags([id], [{ key: 'host', value: 'h1' }]);
    m.createTags([id], [{ key: 'host', value: 'h2' }]);
    assert.deepEqual(m.listInstances()[0]?.tags, [{ key: 'host', value: 'h2' }]);
    assert.equal(
      code(() => m.createTags(['vol-1'], [{ key: 'a', value: 'b' }])),
      'InvalidID',
    );
    assert.equal(
      code(() => m.createTags(['i-00000000000000009'], [{ key: 'a', value: 'b' }])),
      'InvalidInstanceID.NotFound',
    );
  });

  test('snapshot and restore round-trip the whole state, counters included', () => {
    const m = model();
    m.runInstances(launch(), T0);
    const copy = model();
    copy.restore(m.snapshot());
    assert.deepEqual(copy.listInstances(), m.listInstances());
    assert.equal(copy.runInstances(launch(), T0).view.instances[0]?.instanceId, 'i-00000000000000002');
  });

  test('zone ids abbreviate the region like AWS', () => {
    assert.equal(zoneIdFor('us-east-1a', 'us-east-1'), 'use1-az1');
    assert.equal(zoneIdFor('eu-west-2c', 'eu-west-2'), 'euw2-az3');
  });
});
