/** Data shapes of the EC2 shim (plain, JSON-serialisable so the state can be snapshotted). */

export type InstanceStateName = 'pending' | 'running' | 'shutting-down' | 'terminated';

/** The numeric codes EC2 reports next to each state name. */
export const INSTANCE_STATE_CODES: Readonly<Record<InstanceStateName, number>> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
};

export interface Tag {
  key: string;
  value: string;
}

export interface TagSpecification {
  resourceType: string;
  tags: Tag[];
}

export interface SpotOptions {
  maxPrice?: string;
  spotInstanceType?: string;
  instanceInterruptionBehavior?: string;
}

export interface MarketOptions {
  marketType: 'spot' | 'capacity-block';
  spotOptions?: SpotOptions;
}

/** Settings shared by launch-template data and RunInstances (the request overrides the template). */
export interface LaunchSettings {
  imageId?: string;
  instanceType?: string;
  keyName?: string;
  userData?: string;
  subnetId?: string;
  availabilityZone?: string;
  iamInstanceProfile?: { arn?: string; name?: string };
  instanceMarketOptions?: MarketOptions;
  tagSpecifications?: TagSpecification[];
}

export interface LaunchTemplateRef {
  launchTemplateId?: string;
  launchTemplateName?: string;
  version?: string;
}

export interface RunInstancesRequest extends LaunchSettings {
  minCount: number;
  maxCount: number;
  launchTemplate?: LaunchTemplateRef;
  clientToken?: string;
}

export interface LaunchTemplate {
  launchTemplateId: string;
  launchTemplateName: string;
  createTime: number;
  tags: Tag[];
  data: LaunchSettings;
}

export interface Instance {
  instanceId: string;
  reservationId: string;
  /** Launch order across the whole endpoint; drives the synthetic network topology. */
  ordinal: number;
  amiLaunchIndex: number;
  imageId: string;
  instanceType: string;
  state: InstanceStateName;
  stateTransitionReason: string;
  stateReason?: { code: string; message: string };
  launchTime: number;
  tags: Tag[];
  availabilityZone: string;
  privateIpAddress: string;
  privateDnsName: string;
  keyName?: string;
  subnetId?: string;
  userData?: string;
  iamInstanceProfileArn?: string;
  instanceLifecycle?: 'spot';
  spotInstanceRequestId?: string;
  clientToken?: string;
  launchTemplate?: { launchTemplateId: string; launchTemplateName: string; version: string };
  /** When the current transient state (pending, shutting-down) ends. */
  transitionAt?: number;
  /** When a Spot interruption notice expires and the instance starts shutting down. */
  interruptionAt?: number;
  terminatedAt?: number;
}

export interface Reservation {
  reservationId: string;
  instanceIds: string[];
  clientToken?: string;
  /** Canonical form of the request, to detect an idempotency-token reuse with other parameters. */
  requestFingerprint: string;
}

export interface Filter {
  name: string;
  values: string[];
}

/** What the model tells the outside world; the service turns these into EventBridge events. */
export type Ec2Notification =
  | { kind: 'state-change'; instanceId: string; state: InstanceStateName; at: number }
  | { kind: 'spot-interruption-warning'; instanceId: string; at: number; instanceAction: 'terminate' };

export interface InstanceStateChange {
  instanceId: string;
  previousState: InstanceStateName;
  currentState: InstanceStateName;
}

export interface TopologyLayout {
  /** Instances under one bottom-layer (layer 3) network node. */
  instancesPerBottomNode: number;
  /** Bottom-layer nodes under one middle-layer node. */
  bottomNodesPerMiddleNode: number;
  /** Middle-layer nodes under one top-layer node. */
  middleNodesPerTopNode: number;
}

export interface InstanceTopology {
  instanceId: string;
  instanceType: string;
  /** Top layer first, as DescribeInstanceTopology lists them. */
  networkNodes: [string, string, string];
  availabilityZone: string;
  zoneId: string;
}
