import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EC2Client } from '@aws-sdk/client-ec2';
import {
  Ec2TopologySource,
  StaticTopologySource,
  topologyFromDescribeOutput,
} from '../../../../agents/host/discovery/topology.ts';
import { FIXTURES } from '../helpers.ts';
import { bodyText, fakeHttpHandler } from '../ports/fake-http.ts';

const output = JSON.parse(readFileSync(join(FIXTURES, 'ec2', 'describe-instance-topology.json'), 'utf8'));

test('rack is the bottom network node, network the top one', () => {
  assert.deepEqual(topologyFromDescribeOutput(output, 'i-0a1b2c3d4e5f60718'), {
    rack: 'nn-3c4d5e6f7a8b9c0d1',
    network: 'nn-1a2b3c4d5e6f7a8b9',
    nodes: ['nn-1a2b3c4d5e6f7a8b9', 'nn-2b3c4d5e6f7a8b9c0', 'nn-3c4d5e6f7a8b9c0d1'],
  });
  // Same top and middle node, different bottom node: same network, different rack.
  const neighbour = topologyFromDescribeOutput(output, 'i-0b2c3d4e5f6071829');
  assert.equal(neighbour?.network, 'nn-1a2b3c4d5e6f7a8b9');
  assert.equal(neighbour?.rack, 'nn-4d5e6f7a8b9c0d1e2');
});

test('four-layer instance types use the fourth node as rack', () => {
  const topology = topologyFromDescribeOutput(output, 'i-0c3d4e5f607182930');
  assert.equal(topology?.rack, 'nn-8b9c0d1e2f3a4b5c6');
  assert.equal(topology?.network, 'nn-5e6f7a8b9c0d1e2f3');
  assert.equal(topology?.nodes.length, 4);
});

test('unsupported instance types and unknown instances have no topology', () => {
  assert.equal(topologyFromDescribeOutput(output, 'i-0d4e5f60718293a4b'), null);
  assert.equal(topologyFromDescribeOutput(output, 'i-00000000000000000'), null);
  assert.equal(topologyFromDescribeOutput({}, 'i-0a1b2c3d4e5f60718'), null);
});

test('Ec2TopologySource asks DescribeInstanceTopology for its own instance', async () => {
  const http = fakeHttpHandler(() => ({
    statusCode: 200,
    headers: { 'content-type': 'text/xml;charset=UTF-8' },
    body: `<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstanceTopologyResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>2c6a0f6e-8d6a-4a1c-9a55-example</requestId>
  <instanceSet>
    <item>
      <instanceId>i-0a1b2c3d4e5f60718</instanceId>
      <instanceType>p4d.24xlarge</instanceType>
      <groupName>tessera-training-cpg</groupName>
      <networkNodeSet>
        <item>nn-top</item>
        <item>nn-middle</item>
        <item>nn-bottom</item>
      </networkNodeSet>
      <availabilityZone>us-east-1a</availabilityZone>
      <zoneId>use1-az4</zoneId>
    </item>
  </instanceSet>
</DescribeInstanceTopologyResponse>`,
  }));
  const client = new EC2Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: http.handler,
  });
  const topology = await new Ec2TopologySource(client).topology('i-0a1b2c3d4e5f60718');
  assert.deepEqual(topology, {
    rack: 'nn-bottom',
    network: 'nn-top',
    nodes: ['nn-top', 'nn-middle', 'nn-bottom'],
  });
  const body = new URLSearchParams(bodyText(http.requests[0]!));
  assert.equal(body.get('Action'), 'DescribeInstanceTopology');
  assert.equal(body.get('InstanceId.1'), 'i-0a1b2c3d4e5f60718');
});

test('StaticTopologySource returns what it was given', async () => {
  assert.equal(await new StaticTopologySource(null).topology(), null);
});
