/**
 * Where GPU hosts run: a VPC with public subnets only (no NAT gateway to pay for; instances get public IPs from
 * the subnet but accept no inbound traffic from outside their security group), gateway endpoints for S3 and DynamoDB, flow
 * logs, and per GPU family an instance role, instance profile and launch template (Deep Learning AMI with the
 * NVIDIA driver, IMDSv2 only, encrypted root volume, the host agent installed by user data).
 *
 * Instance role: GetItem on the Hosts table only for the item keyed by its own instance ARN
 * (`dynamodb:LeadingKeys` = `${ec2:SourceInstanceARN}`: the copy of its desired state the control plane writes
 * there) and only its `hostId` and `desired` attributes; SendMessage to the telemetry queue; DescribeInstanceTopology;
 * checkpoint objects of jobs (under `jobs/<jobId>/checkpoints/`) plus reading `agent/`. IAM has no condition
 * naming the jobs placed on an instance, so this grant covers every job's checkpoints (docs/deploy.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockDeviceVolume,
  CfnSecurityGroupIngress,
  EbsDeviceVolumeType,
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  LaunchTemplate,
  MachineImage,
  SecurityGroup,
  SubnetType,
  UserData,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { InstanceProfile, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WORKDIR_PREFIX } from '../protocol/code-source.ts';
import { AGENT_PREFIX, CHECKPOINTS_OF_ANY_JOB } from './storage.ts';

/** Public SSM parameter of the Deep Learning Base OSS Nvidia Driver AMI (Amazon Linux 2023, x86_64). */
export const GPU_AMI_PARAMETER =
  '/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id';
export const ROOT_VOLUME_GIB = 200;

export interface TesseraFleetProps {
  readonly repositoryRoot: string;
  readonly instanceFamilies: readonly string[];
  readonly hosts: Table;
  readonly telemetry: Queue;
  readonly bucket: Bucket;
  readonly agentAssetUri: string;
}

export interface FamilyFleet {
  readonly family: string;
  readonly role: Role;
  readonly instanceProfile: InstanceProfile;
  readonly launchTemplate: LaunchTemplate;
}

export class TesseraFleet extends Construct {
  readonly vpc: Vpc;
  readonly securityGroup: SecurityGroup;
  readonly families: FamilyFleet[];

  constructor(scope: Construct, id: string, props: TesseraFleetProps) {
    super(scope, id);
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 3,
      natGateways: 0,
      subnetConfiguration: [{ name: 'hosts', subnetType: SubnetType.PUBLIC, cidrMask: 20 }],
      gatewayEndpoints: {
        S3: { service: GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: GatewayVpcEndpointAwsService.DYNAMODB },
      },
    });
    this.vpc.addFlowLog('FlowLogs', {
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, 'FlowLogGroup', { retention: RetentionDays.ONE_MONTH }),
      ),
      trafficType: FlowLogTrafficType.REJECT,
    });
    this.securityGroup = new SecurityGroup(this, 'Hosts', {
      vpc: this.vpc,
      description: 'Tessera GPU hosts: rendezvous and collectives between hosts of the cluster only',
      allowAllOutbound: true,
    });
    // Training traffic between hosts of the cluster (rendezvous, NCCL): a separate ingress resource, because a rule
    // inside the group referencing the group itself is a circular dependency.
    new CfnSecurityGroupIngress(this, 'HostsFromHosts', {
      groupId: this.securityGroup.securityGroupId,
      sourceSecurityGroupId: this.securityGroup.securityGroupId,
      ipProtocol: 'tcp',
      fromPort: 0,
      toPort: 65535,
      description: 'rendezvous and collectives between cluster hosts',
    });

    const template = readFileSync(join(props.repositoryRoot, 'agents', 'host', 'user-data.sh'), 'utf8');
    const script = renderUserData(template, {
      AGENT_ASSET_S3_URI: props.agentAssetUri,
      HOSTS_TABLE: props.hosts.tableName,
      TELEMETRY_QUEUE_URL: props.telemetry.queueUrl,
      AWS_REGION: Stack.of(this).region,
      HOST_ARN_PREFIX: hostArnPrefix(this),
    });
    const image = MachineImage.fromSsmParameter(GPU_AMI_PARAMETER);
    this.families = props.instanceFamilies.map((family) => {
      const role = new Role(this, `${family}Role`, {
        assumedBy: new ServicePrincipal('ec2.amazonaws.com'),
        description: `Tessera ${family} GPU hosts: read their desired state, send telemetry, write checkpoints`,
      });
      grantHostPermissions(role, props);
      const instanceProfile = new InstanceProfile(this, `${family}InstanceProfile`, { role });
      // Exactly the script (its own shebang first): forLinux() would prepend another line.
      const userData = UserData.custom(script);
      const launchTemplate = new LaunchTemplate(this, `${family}LaunchTemplate`, {
        machineImage: image,
        instanceProfile,
        securityGroup: this.securityGroup,
        requireImdsv2: true,
        httpPutResponseHopLimit: 2,
        userData,
        blockDevices: [
          {
            deviceName: '/dev/xvda',
            volume: BlockDeviceVolume.ebs(ROOT_VOLUME_GIB, {
              encrypted: true,
              volumeType: EbsDeviceVolumeType.GP3,
              deleteOnTermination: true,
            }),
          },
        ],
      });
      return { family, role, instanceProfile, launchTemplate };
    });
  }

  /** Subnets the round launches into, in order of preference (the next one on a capacity error). */
  get subnetIds(): string[] {
    return this.vpc.publicSubnets.map((s) => s.subnetId);
  }
}

/** Substitutes the `@@NAME@@` placeholders of agents/host/user-data.sh; every placeholder must be given. */
export const renderUserData = (template: string, values: Readonly<Record<string, string>>): string => {
  const missing = new Set<string>();
  const rendered = template.replace(/@@([A-Z0-9_]+)@@/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) {
      missing.add(name);
      return '';
    }
    return value;
  });
  if (missing.size > 0) throw new Error(`user data: no value for placeholder(s) ${[...missing].join(', ')}`);
  return rendered;
};

/** `arn:<partition>:ec2:<region>:<account>:instance/`: + instance id = the key of a host's desired-state copy. */
export const hostArnPrefix = (scope: Construct): string => {
  const stack = Stack.of(scope);
  return `arn:${stack.partition}:ec2:${stack.region}:${stack.account}:instance/`;
};

/** The IAM policy variable naming the calling instance (set for requests signed with instance role credentials). */
export const SOURCE_INSTANCE_ARN = '${ec2:SourceInstanceARN}';

const grantHostPermissions = (role: Role, props: TesseraFleetProps) => {
  role.addToPolicy(
    new PolicyStatement({
      sid: 'ReadOwnDesiredState',
      actions: ['dynamodb:GetItem'],
      resources: [props.hosts.tableArn],
      conditions: {
        'ForAllValues:StringEquals': {
          'dynamodb:LeadingKeys': [SOURCE_INSTANCE_ARN],
          'dynamodb:Attributes': ['hostId', 'desired'],
        },
        StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      },
    }),
  );
  props.telemetry.grantSendMessages(role);
  role.addToPolicy(
    new PolicyStatement({
      sid: 'ReadOwnTopology',
      actions: ['ec2:DescribeInstanceTopology'],
      // Describe calls support no resource-level permissions.
      resources: ['*'],
    }),
  );
  role.addToPolicy(
    new PolicyStatement({
      sid: 'Checkpoints',
      // Staging: upload steps (multipart for large files), read them back for a resume.
      actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'],
      resources: [props.bucket.arnForObjects(CHECKPOINTS_OF_ANY_JOB)],
    }),
  );
  role.addToPolicy(
    new PolicyStatement({
      sid: 'ListCheckpoints',
      actions: ['s3:ListBucket'],
      resources: [props.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [CHECKPOINTS_OF_ANY_JOB, `${AGENT_PREFIX}/*`] } },
    }),
  );
  role.addToPolicy(
    new PolicyStatement({
      // Uploaded working directories: content-addressed archives, read only (the CLI writes them).
      sid: 'ReadWorkdirs',
      actions: ['s3:GetObject'],
      resources: [props.bucket.arnForObjects(`${WORKDIR_PREFIX}*`)],
    }),
  );
  role.addToPolicy(
    new PolicyStatement({
      sid: 'ReadAgentBundle',
      actions: ['s3:GetObject'],
      resources: [props.bucket.arnForObjects(`${AGENT_PREFIX}/*`)],
    }),
  );
};
