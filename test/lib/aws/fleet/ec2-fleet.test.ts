import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RunInstancesCommand } from '@aws-sdk/client-ec2';
import { Ec2Fleet, FleetCapacityError, rackAndNetwork } from '../../../../lib/aws/fleet/ec2-fleet.ts';

/** Records commands; answers from a queue of responses (an Error is thrown). */
const fakeEc2 = (responses: unknown[]) => {
  const commands: { name: string; input: Record<string, unknown> }[] = [];
  return {
    commands,
    client: {
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        commands.push({ name: command.constructor.name, input: command.input });
        const response = responses.shift();
        if (response instanceof Error) throw response;
        return response ?? {};
      },
    },
  };
};

const request = {
  clusterName: 'prod',
  launchTemplateId: 'lt-1',
  instanceType: 'g5.xlarge',
  gpuType: 'A10G',
  count: 2,
  lifecycle: 'spot' as const,
  clientToken: 'tok',
  subnetId: 'subnet-1',
};

describe('Ec2Fleet.launch', () => {
  test('RunInstances from the launch template, with tags, Spot options, token and subnet', async () => {
    const { client, commands } = fakeEc2([
      {
        Instances: [
          {
            InstanceId: 'i-1',
            InstanceType: 'g5.xlarge',
            State: { Name: 'pending' },
            InstanceLifecycle: 'spot',
            Placement: { AvailabilityZone: 'us-east-1a' },
            PrivateIpAddress: '10.0.0.5',
            Tags: [{ Key: 'tessera:gpu-type', Value: 'A10G' }],
            LaunchTime: new Date(5000), // epoch ms: 5 s
          },
        ],
      },
    ]);
    const instances = await new Ec2Fleet(client as never).launch(request);
    const input = commands[0]?.input as unknown as RunInstancesCommand['input'];
    assert.equal(commands[0]?.name, 'RunInstancesCommand');
    assert.deepEqual(input.LaunchTemplate, { LaunchTemplateId: 'lt-1', Version: '$Latest' });
    assert.equal(input.MinCount, 2);
    assert.equal(input.MaxCount, 2);
    assert.equal(input.ClientToken, 'tok');
    assert.equal(input.SubnetId, 'subnet-1');
    assert.equal(input.InstanceMarketOptions?.MarketType, 'spot');
    assert.deepEqual(
      input.TagSpecifications?.map((t) => t.ResourceType),
      ['instance', 'volume'],
    );
    assert.deepEqual(
      input.TagSpecifications?.[0]?.Tags?.find((t) => t.Key === 'tessera:cluster'),
      { Key: 'tessera:cluster', Value: 'prod' },
    );
    assert.deepEqual(instances, [
      {
        instanceId: 'i-1',
        instanceType: 'g5.xlarge',
        state: 'pending',
        lifecycle: 'spot',
        zone: 'us-east-1a',
        privateIp: '10.0.0.5',
        gpuType: 'A10G',
        launchedAt: 5, // epoch seconds
      },
    ]);
  });

  test('on-demand launches carry no market options', async () => {
    const { client, commands } = fakeEc2([{ Instances: [] }]);
    await new Ec2Fleet(client as never).launch({ ...request, lifecycle: 'on-demand' });
    assert.equal(
      (commands[0]!.input as unknown as RunInstancesCommand['input']).InstanceMarketOptions,
      undefined,
    );
  });

  test('capacity and quota refusals become FleetCapacityError; others propagate', async () => {
    const insufficient = Object.assign(new Error('no capacity'), { name: 'InsufficientInstanceCapacity' });
    await assert.rejects(
      new Ec2Fleet(fakeEc2([insufficient]).client as never).launch(request),
      (e: Error) =>
        e instanceof FleetCapacityError && (e as FleetCapacityError).code === 'InsufficientInstanceCapacity',
    );
    const denied = Object.assign(new Error('denied'), { name: 'UnauthorizedOperation' });
    await assert.rejects(new Ec2Fleet(fakeEc2([denied]).client as never).launch(request), /denied/);
  });
});

describe('Ec2Fleet queries', () => {
  test('lists the cluster’s live instances across pages', async () => {
    const { client, commands } = fakeEc2([
      { Reservations: [{ Instances: [{ InstanceId: 'i-1', State: { Name: 'running' } }] }], NextToken: 'p2' },
      { Reservations: [{ Instances: [{ InstanceId: 'i-2', State: { Name: 'pending' } }] }] },
    ]);
    const found = await new Ec2Fleet(client as never).listClusterInstances('prod');
    assert.deepEqual(
      found.map((i) => i.instanceId),
      ['i-1', 'i-2'],
    );
    assert.deepEqual(commands[0]?.input.Filters, [
      { Name: 'tag:tessera:cluster', Values: ['prod'] },
      { Name: 'instance-state-name', Values: ['pending', 'running'] },
    ]);
    assert.equal(commands[1]?.input.NextToken, 'p2');
  });

  test('topology in batches of 100 ids, pages followed; rack = bottom node, network = top node', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `i-${i}`);
    const { client, commands } = fakeEc2([
      { Instances: [{ InstanceId: 'i-0', NetworkNodes: ['top', 'mid', 'bottom'] }], NextToken: 'n' },
      { Instances: [] },
      { Instances: [{ InstanceId: 'i-100', NetworkNodes: ['top', 'mid', 'b2'] }] },
    ]);
    const topology = await new Ec2Fleet(client as never).describeTopology(ids);
    assert.equal((commands[0]!.input.InstanceIds as string[]).length, 100);
    assert.deepEqual(commands[2]?.input.InstanceIds, ['i-100']);
    assert.deepEqual(rackAndNetwork(topology.get('i-0')!), { rack: 'bottom', network: 'top' });
    assert.equal(rackAndNetwork([]), undefined);
  });
});
