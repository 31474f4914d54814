/**
 * EC2 for the control plane: RunInstances from a family's launch template (tags, Spot or on-demand, an
 * idempotency token), TerminateInstances, the cluster's live instances, and DescribeInstanceTopology.
 * Capacity and quota refusals are a `FleetCapacityError` the round logs and moves past.
 */
import {
  DescribeInstancesCommand,
  DescribeInstanceTopologyCommand,
  type EC2Client,
  type Instance,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import type { Lifecycle } from '../../core/model/cluster.ts';
import { CLUSTER_TAG, GPU_TYPE_TAG } from './fleet-config.ts';

export interface LaunchRequest {
  readonly clusterName: string;
  readonly launchTemplateId: string;
  readonly instanceType: string;
  readonly gpuType: string;
  readonly count: number;
  readonly lifecycle: Lifecycle;
  /** Launch into this subnet (else the launch template's or the default VPC's). */
  readonly subnetId?: string;
  /** Same token, same request → the same instances (a retried round does not launch twice). */
  readonly clientToken: string;
}

export interface FleetInstance {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly state: string;
  readonly zone?: string;
  readonly privateIp?: string;
  readonly lifecycle: Lifecycle;
  readonly gpuType?: string;
  /** Epoch seconds. */
  readonly launchedAt?: number;
}

/** EC2 said no for capacity or quota reasons: try another type or a later round. */
export class FleetCapacityError extends Error {
  override readonly name = 'FleetCapacityError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const CAPACITY_ERRORS = new Set([
  'InsufficientInstanceCapacity',
  'InstanceLimitExceeded',
  'VcpuLimitExceeded',
  'MaxSpotInstanceCountExceeded',
  'SpotMaxPriceTooLow',
  'InsufficientCapacity',
  'Unsupported',
]);

const TOPOLOGY_BATCH = 100;

export class Ec2Fleet {
  constructor(private readonly ec2: Pick<EC2Client, 'send'>) {}

  async launch(request: LaunchRequest): Promise<FleetInstance[]> {
    const tags = [
      { Key: CLUSTER_TAG, Value: request.clusterName },
      { Key: GPU_TYPE_TAG, Value: request.gpuType },
      { Key: 'Name', Value: `${request.clusterName}-${request.gpuType}` },
    ];
    try {
      const output = await this.ec2.send(
        new RunInstancesCommand({
          LaunchTemplate: { LaunchTemplateId: request.launchTemplateId, Version: '$Latest' },
          InstanceType: request.instanceType as never,
          MinCount: request.count,
          MaxCount: request.count,
          ClientToken: request.clientToken,
          ...(request.subnetId ? { SubnetId: request.subnetId } : {}),
          ...(request.lifecycle === 'spot'
            ? {
                InstanceMarketOptions: {
                  MarketType: 'spot',
                  SpotOptions: { SpotInstanceType: 'one-time', InstanceInterruptionBehavior: 'terminate' },
                },
              }
            : {}),
          TagSpecifications: [
            { ResourceType: 'instance', Tags: tags },
            { ResourceType: 'volume', Tags: tags },
          ],
        }),
      );
      return (output.Instances ?? []).map((i) => toFleetInstance(i));
    } catch (error) {
      const name = (error as Error).name;
      if (CAPACITY_ERRORS.has(name)) throw new FleetCapacityError(name, (error as Error).message);
      throw error;
    }
  }

  async terminate(instanceIds: readonly string[]): Promise<void> {
    if (instanceIds.length === 0) return;
    await this.ec2.send(new TerminateInstancesCommand({ InstanceIds: [...instanceIds] }));
  }

  /** Pending and running instances tagged with the cluster's name. */
  async listClusterInstances(clusterName: string): Promise<FleetInstance[]> {
    const found: FleetInstance[] = [];
    let nextToken: string | undefined;
    do {
      const output = await this.ec2.send(
        new DescribeInstancesCommand({
          Filters: [
            { Name: `tag:${CLUSTER_TAG}`, Values: [clusterName] },
            { Name: 'instance-state-name', Values: ['pending', 'running'] },
          ],
          MaxResults: 1000,
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
      );
      for (const reservation of output.Reservations ?? [])
        for (const instance of reservation.Instances ?? []) found.push(toFleetInstance(instance));
      nextToken = output.NextToken;
    } while (nextToken);
    return found;
  }

  /**
   * Network nodes per instance, top layer first, as DescribeInstanceTopology lists them. Instances of types it
   * does not cover are absent from the result.
   */
  async describeTopology(instanceIds: readonly string[]): Promise<Map<string, string[]>> {
    const topology = new Map<string, string[]>();
    for (let i = 0; i < instanceIds.length; i += TOPOLOGY_BATCH) {
      let nextToken: string | undefined;
      do {
        const output = await this.ec2.send(
          new DescribeInstanceTopologyCommand({
            InstanceIds: instanceIds.slice(i, i + TOPOLOGY_BATCH),
            ...(nextToken ? { NextToken: nextToken } : {}),
          }),
        );
        for (const entry of output.Instances ?? [])
          if (entry.InstanceId && entry.NetworkNodes) topology.set(entry.InstanceId, entry.NetworkNodes);
        nextToken = output.NextToken;
      } while (nextToken);
    }
    return topology;
  }
}

/** Placement levels from DescribeInstanceTopology: rack = the bottom node, network = the top node. */
export const rackAndNetwork = (nodes: readonly string[]): { rack: string; network: string } | undefined =>
  nodes.length === 0 ? undefined : { rack: nodes[nodes.length - 1]!, network: nodes[0]! };

const toFleetInstance = (instance: Instance): FleetInstance => {
  const gpuType = instance.Tags?.find((t) => t.Key === GPU_TYPE_TAG)?.Value;
  return {
    instanceId: instance.InstanceId ?? '',
    instanceType: instance.InstanceType ?? '',
    state: instance.State?.Name ?? 'unknown',
    lifecycle: instance.InstanceLifecycle === 'spot' ? 'spot' : 'on-demand',
    ...(instance.Placement?.AvailabilityZone ? { zone: instance.Placement.AvailabilityZone } : {}),
    ...(instance.PrivateIpAddress ? { privateIp: instance.PrivateIpAddress } : {}),
    ...(gpuType ? { gpuType } : {}),
    ...(instance.LaunchTime ? { launchedAt: instance.LaunchTime.getTime() / 1000 } : {}),
  };
};
