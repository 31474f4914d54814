/**
 * cdk-nag AwsSolutions findings the design accepts, each with its reason and, where the rule allows, limited to
 * the exact finding (`appliesTo`). Anything not listed here must pass.
 */
import type { Stack } from 'aws-cdk-lib';
import { NagSuppressions } from 'cdk-nag';

const REGION = '(<AWS::Region>|[a-z]{2}(-[a-z]+)+-\\d)';
const ACCOUNT = '(<AWS::AccountId>|\\d{12})';
const LAMBDA_BASIC_EXECUTION =
  'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole';

export interface NagSuppression {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
  readonly appliesTo?: readonly (string | { regex: string })[];
}

/** Paths are relative to the stack (`/<stack>` is prepended). */
export const NAG_SUPPRESSIONS: readonly NagSuppression[] = [
  ...['Api', 'Ingest', 'Round', 'Telemetry', 'FleetEvents'].flatMap((fn): NagSuppression[] => [
    {
      path: `/Functions/${fn}/Resource`,
      id: 'AwsSolutions-L1',
      reason:
        'Tessera targets the Node.js 22 Lambda runtime (its tested Node line); upgrade deliberately, not implicitly.',
    },
    {
      path: `/Functions/${fn}/ServiceRole/Resource`,
      id: 'AwsSolutions-IAM4',
      reason: 'AWSLambdaBasicExecutionRole only allows writing the function’s own CloudWatch logs.',
      appliesTo: [LAMBDA_BASIC_EXECUTION],
    },
  ]),
  {
    path: '/Queues/EventsDlq/Resource',
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a DLQ: EventBridge targets and asynchronous Lambda invocations send to it (cdk-nag only recognises SQS redrive policies).',
  },
  {
    path: '/Functions/Round/ServiceRole/DefaultPolicy/Resource',
    id: 'AwsSolutions-IAM5',
    reason:
      'RunInstances creates instances, volumes, network interfaces and Spot requests whose ids do not exist beforehand; they are limited to this region/account and, for instances and volumes, to requests tagged with the cluster. Any AMI may be named by the launch template (an SSM public parameter). Describe* calls support no resource-level permissions.',
    appliesTo: [
      // The region is a token in an environment-agnostic synth and a literal when CDK_DEFAULT_REGION is set.
      {
        regex: `/^Resource::arn:<AWS::Partition>:ec2:${REGION}:${ACCOUNT}:(instance|volume|network-interface|spot-instances-request)\\/\\*$/`,
      },
      { regex: `/^Resource::arn:<AWS::Partition>:ec2:${REGION}::image\\/\\*$/` },
      'Resource::*',
    ],
  },
  {
    path: '/Fleet',
    id: 'AwsSolutions-IAM5',
    reason:
      'GPU hosts stage checkpoints under jobs/<jobId>/checkpoints/ for whichever jobs they run (IAM cannot name the jobs placed on an instance), read the agent bundle under agent/ and the working directories of their jobs under workdirs/ (content-addressed archives, read only); DescribeInstanceTopology supports no resource-level permissions.',
    appliesTo: [
      { regex: '/^Resource::<StorageBucket[0-9A-F]+\\.Arn>/(jobs/\\*/checkpoints|agent|workdirs)/\\*$/' },
      'Resource::*',
    ],
  },
  {
    path: '/Api/Api/CloudWatchRole/Resource',
    id: 'AwsSolutions-IAM4',
    reason:
      'API Gateway’s account-level logging role; AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS defines for it.',
    appliesTo: [
      'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    ],
  },
  {
    path: '/Api/Api/DeploymentStage.v1/Resource',
    id: 'AwsSolutions-APIG3',
    reason:
      'Every method requires SigV4-signed IAM requests; a WAF web ACL (≥ $5/month plus request fees) adds little. Attach one if the API is exposed beyond the account’s principals.',
  },
  {
    path: '/Api/Api',
    id: 'AwsSolutions-COG4',
    reason:
      'The API is authorised with IAM by design: the caller’s IAM identity is the tenant (the same identity SQS submissions carry).',
  },
];

/** Findings on the BucketDeployment custom resource CDK creates (its handler and role are CDK's, not ours). */
const BUCKET_DEPLOYMENT_SUPPRESSIONS = [
  { id: 'AwsSolutions-L1', reason: 'CDK’s BucketDeployment handler; its runtime is chosen by aws-cdk-lib.' },
  {
    id: 'AwsSolutions-IAM4',
    reason: 'CDK’s BucketDeployment handler only writes its own logs with AWSLambdaBasicExecutionRole.',
  },
  {
    id: 'AwsSolutions-IAM5',
    reason:
      'CDK’s BucketDeployment copies the agent asset from the CDK asset bucket into agent/ of the Tessera bucket; CDK scopes its grants to those two buckets.',
  },
];

export const applyNagSuppressions = (stack: Stack): void => {
  for (const s of NAG_SUPPRESSIONS) {
    NagSuppressions.addResourceSuppressionsByPath(
      stack,
      `/${stack.node.path}${s.path}`,
      [{ id: s.id, reason: s.reason, ...(s.appliesTo ? { appliesTo: [...s.appliesTo] } : {}) }],
      true,
    );
  }
  for (const child of stack.node.children) {
    if (child.node.id.startsWith('Custom::CDKBucketDeployment')) {
      NagSuppressions.addResourceSuppressions(child, BUCKET_DEPLOYMENT_SUPPRESSIONS, true);
    }
  }
};
