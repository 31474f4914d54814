/**
 * Network position of the host from EC2's DescribeInstanceTopology. Its NetworkNodes list the
 * node set top-down: the first node is the top layer of the network, the last is the node the
 * instance connects to. Tessera's placement levels map onto them as rack = bottom node (instances
 * sharing it are closest) and network = top node.
 */
import {
  DescribeInstanceTopologyCommand,
  type DescribeInstanceTopologyCommandOutput,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import type { HostTopology } from '../../../lib/protocol/telemetry.ts';

export interface TopologySource {
  /** Null when EC2 has no topology for the instance (unsupported type, not running yet). */
  topology(instanceId: string): Promise<HostTopology | null>;
}

export function topologyFromDescribeOutput(
  output: Pick<DescribeInstanceTopologyCommandOutput, 'Instances'>,
  instanceId: string,
): HostTopology | null {
  const instance = output.Instances?.find((candidate) => candidate.InstanceId === instanceId);
  const nodes = instance?.NetworkNodes?.filter((node) => node !== '') ?? [];
  const network = nodes[0];
  const rack = nodes[nodes.length - 1];
  if (network === undefined || rack === undefined) return null;
  return { rack, network, nodes };
}

export class Ec2TopologySource implements TopologySource {
  constructor(private readonly client: Pick<EC2Client, 'send'>) {}

  async topology(instanceId: string): Promise<HostTopology | null> {
    const output = await this.client.send(new DescribeInstanceTopologyCommand({ InstanceIds: [instanceId] }));
    return topologyFromDescribeOutput(output, instanceId);
  }
}

/** A fixed topology (local mode, simulated hosts) or none. */
export class StaticTopologySource implements TopologySource {
  constructor(private readonly value: HostTopology | null) {}

  async topology(): Promise<HostTopology | null> {
    return this.value;
  }
}
