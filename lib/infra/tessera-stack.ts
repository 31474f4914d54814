/**
 * TesseraStack: the serverless control plane (DESIGN.md §4). Tables, queues, the API, five functions, the
 * EventBridge round schedule and EC2 rules, launch templates per GPU family, the checkpoint/agent bucket and
 * alarms; every function gets only the IAM actions it uses on the resources it touches.
 */
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { ENV, type FunctionKind } from '../aws/environment.ts';
import { CLUSTER_TAG } from '../aws/fleet/fleet-config.ts';
import { SPOT_WARNING, STATE_CHANGE } from '../aws/fleet-events/apply-fleet-event.ts';
import { HOSTS_TABLE, JOBS_TABLE } from '../aws/tables.ts';
import { resolveDataDir } from '../data/data-dir.ts';
import { TesseraAlarms } from './alarms.ts';
import { TesseraApi } from './api.ts';
import { hostArnPrefix, TesseraFleet } from './fleet.ts';
import { FUNCTION_SETTINGS, TesseraFunctions } from './functions.ts';
import { HostDataRole } from './host-data-role.ts';
import { applyNagSuppressions } from './nag-suppressions.ts';
import { instanceTypesOf, type TesseraSettings } from './props.ts';
import { TesseraQueues } from './queues.ts';
import { JOB_LOGS_PATTERN, JOBS_PREFIX, TesseraStorage } from './storage.ts';
import { TesseraTables } from './tables.ts';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface TesseraStackProps extends StackProps {
  readonly settings: TesseraSettings;
  /** Performance data to bundle with the round function; default: the shared data directory. */
  readonly perfDataDir?: string;
  readonly repositoryRoot?: string;
}

/** EC2 instance states after which a host runs nothing: the fleet-events rule listens for these. */
export const GONE_STATES = ['shutting-down', 'terminated', 'stopping', 'stopped'];

export class TesseraStack extends Stack {
  readonly tables: TesseraTables;
  readonly queues: TesseraQueues;
  readonly storage: TesseraStorage;
  readonly fleet: TesseraFleet;
  readonly hostData: HostDataRole;
  readonly functions: Record<FunctionKind, NodejsFunction>;
  readonly api: TesseraApi;
  readonly alarms: TesseraAlarms;

  constructor(scope: Construct, id: string, props: TesseraStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const root = props.repositoryRoot ?? REPOSITORY_ROOT;
    // Server access logs are delivered under a bucket policy, not the deprecated LogDeliveryWrite ACL.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    this.tables = new TesseraTables(this, 'Tables', {
      keepLegacyChangeIndex: settings.keepLegacyChangeIndex,
    });
    this.queues = new TesseraQueues(this, 'Queues', {
      ingestTimeout: FUNCTION_SETTINGS.ingest.timeout,
      roundTimeout: FUNCTION_SETTINGS.round.timeout,
      telemetryTimeout: FUNCTION_SETTINGS.telemetry.timeout,
    });
    this.storage = new TesseraStorage(this, 'Storage', {
      repositoryRoot: root,
      checkpointRetentionDays: settings.checkpointRetentionDays,
      logRetentionDays: settings.logRetentionDays,
    });
    this.fleet = new TesseraFleet(this, 'Fleet', {
      repositoryRoot: root,
      instanceFamilies: settings.instanceFamilies,
      hosts: this.tables.hosts,
      telemetry: this.queues.telemetry,
      bucket: this.storage.bucket,
      agentAssetUri: this.storage.agentAssetUri,
    });

    const t = this.tables;
    const q = this.queues;
    const tableEnv = {
      [ENV.jobsTable]: t.jobs.tableName,
      [ENV.hostsTable]: t.hosts.tableName,
      [ENV.hostArnPrefix]: hostArnPrefix(this),
      [ENV.profilesTable]: t.profiles.tableName,
      [ENV.stateTable]: t.schedulerState.tableName,
    };
    const fleetConfig = Stack.of(this).toJsonString({
      capacityType: settings.capacityType,
      budgetPerHour: settings.budgetPerHour,
      maxInstances: settings.maxInstances,
      idleCooldownSeconds: settings.idleCooldownMinutes * 60,
      launchTemplates: this.fleet.families.map((f) => ({
        family: f.family,
        launchTemplateId: f.launchTemplate.launchTemplateId,
        instanceTypes: instanceTypesOf(f.family),
      })),
      subnetIds: this.fleet.subnetIds,
    });
    const events = { [ENV.schedulerEventsQueueUrl]: q.schedulerEvents.queueUrl };
    this.functions = new TesseraFunctions(this, 'Functions', {
      repositoryRoot: root,
      perfDataDir: props.perfDataDir ?? resolveDataDir(),
      environment: {
        api: { ...tableEnv, ...events, [ENV.bucket]: this.storage.bucket.bucketName },
        ingest: { ...tableEnv, ...events, [ENV.submissionsDlqUrl]: q.submissionsDlq.queueUrl },
        round: {
          ...tableEnv,
          [ENV.clusterName]: settings.clusterName,
          [ENV.checkpointRoot]: this.storage.checkpointRoot,
          [ENV.policy]: settings.policy,
          [ENV.roundSeconds]: String(settings.roundIntervalMinutes * 60),
          [ENV.fleet]: fleetConfig,
        },
        telemetry: { ...tableEnv, ...events, [ENV.telemetryDlqUrl]: q.telemetryDlq.queueUrl },
        'fleet-events': { ...tableEnv, ...events, [ENV.clusterName]: settings.clusterName },
      },
    }).functions;
    this.hostData = new HostDataRole(this, 'HostData', {
      bucket: this.storage.bucket,
      vendor: this.functions.round.role!,
    });
    this.functions.round.addEnvironment(ENV.hostDataRoleArn, this.hostData.role.roleArn);
    this.grantLeastPrivilege(settings);
    this.wireTriggers(settings);

    this.api = new TesseraApi(this, 'Api', { handler: this.functions.api });
    this.alarms = new TesseraAlarms(this, 'Alarms', {
      deadLetterQueues: {
        Submissions: q.submissionsDlq,
        SchedulerEvents: q.schedulerEventsDlq,
        Telemetry: q.telemetryDlq,
        Events: q.eventsDlq,
      },
      roundFunction: this.functions.round,
      ...(settings.alarmEmail ? { email: settings.alarmEmail } : {}),
    });

    new CfnOutput(this, 'ApiUrl', {
      value: this.api.api.url,
      description: 'Job API (sign requests with SigV4, service execute-api)',
    });
    new CfnOutput(this, 'SubmissionsQueueUrl', { value: q.submissions.queueUrl });
    new CfnOutput(this, 'TelemetryQueueUrl', { value: q.telemetry.queueUrl });
    new CfnOutput(this, 'HostsTableName', { value: t.hosts.tableName });
    new CfnOutput(this, 'JobsTableName', { value: t.jobs.tableName });
    new CfnOutput(this, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'ClusterName', { value: settings.clusterName });
    applyNagSuppressions(this);
  }

  private wireTriggers(settings: TesseraSettings): void {
    const { round, ingest, telemetry } = this.functions;
    const fleetEvents = this.functions['fleet-events'];
    const q = this.queues;
    ingest.addEventSource(
      new SqsEventSource(q.submissions, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(5),
        reportBatchItemFailures: true,
      }),
    );
    telemetry.addEventSource(
      new SqsEventSource(q.telemetry, {
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(20),
        reportBatchItemFailures: true,
      }),
    );
    round.addEventSource(new SqsEventSource(q.schedulerEvents, { batchSize: 10 }));

    const target = (fn: NodejsFunction) =>
      new LambdaFunction(fn, {
        deadLetterQueue: q.eventsDlq,
        retryAttempts: 2,
        maxEventAge: Duration.minutes(10),
      });
    new Rule(this, 'RoundSchedule', {
      description: 'Runs a scheduling round every round interval',
      schedule: Schedule.rate(Duration.minutes(settings.roundIntervalMinutes)),
      targets: [target(round)],
    });
    new Rule(this, 'InstanceStateChange', {
      description: 'EC2 instances stopping or terminating: their hosts are lost and their jobs requeued',
      eventPattern: { source: ['aws.ec2'], detailType: [STATE_CHANGE], detail: { state: GONE_STATES } },
      targets: [target(fleetEvents)],
    });
    new Rule(this, 'SpotInterruption', {
      description: 'Spot interruption warnings: the host drains, its jobs checkpoint and are requeued',
      eventPattern: { source: ['aws.ec2'], detailType: [SPOT_WARNING] },
      targets: [target(fleetEvents)],
    });
    for (const fn of [round, fleetEvents]) {
      fn.configureAsyncInvoke({ onFailure: new SqsDestination(q.eventsDlq), retryAttempts: 2 });
    }
  }

  private grantLeastPrivilege(settings: TesseraSettings): void {
    const t = this.tables;
    const q = this.queues;
    const fns = this.functions;
    const index = (table: { tableArn: string }, name: string) => `${table.tableArn}/index/${name}`;
    const allow = (
      fn: NodejsFunction,
      sid: string,
      actions: string[],
      resources: string[],
      conditions?: Record<string, unknown>,
    ) =>
      fn.addToRolePolicy(
        new PolicyStatement({ sid, actions, resources, ...(conditions ? { conditions } : {}) }),
      );

    // api
    allow(
      fns.api,
      'Jobs',
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      [t.jobs.tableArn],
    );
    allow(
      fns.api,
      'JobIndexes',
      ['dynamodb:Query'],
      [index(t.jobs, JOBS_TABLE.indexes.byTenant.name), index(t.jobs, JOBS_TABLE.indexes.byStatus.name)],
    );
    allow(fns.api, 'HostIndex', ['dynamodb:Query'], [index(t.hosts, HOSTS_TABLE.indexes.byState.name)]);
    allow(fns.api, 'SchedulerState', ['dynamodb:GetItem'], [t.schedulerState.tableArn]);
    q.schedulerEvents.grantSendMessages(fns.api);
    // Worker logs: list a job's chunks and read them, nothing else of the bucket.
    const bucket = this.storage.bucket;
    allow(fns.api, 'ReadJobLogs', ['s3:GetObject'], [bucket.arnForObjects(JOB_LOGS_PATTERN)]);
    allow(fns.api, 'ListJobLogs', ['s3:ListBucket'], [bucket.bucketArn], {
      StringLike: { 's3:prefix': [`${JOBS_PREFIX}/*/logs/`, JOB_LOGS_PATTERN] },
    });

    // ingest
    allow(fns.ingest, 'Jobs', ['dynamodb:GetItem', 'dynamodb:PutItem'], [t.jobs.tableArn]);
    q.schedulerEvents.grantSendMessages(fns.ingest);
    q.submissionsDlq.grantSendMessages(fns.ingest);

    // round
    allow(
      fns.round,
      'Jobs',
      ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      [t.jobs.tableArn],
    );
    // By status: the jobs holding GPUs (and the whole queue on a cold start); by change: what changed since.
    allow(
      fns.round,
      'JobIndexes',
      ['dynamodb:Query'],
      [index(t.jobs, JOBS_TABLE.indexes.byStatus.name), index(t.jobs, JOBS_TABLE.indexes.byChange.name)],
    );
    allow(
      fns.round,
      'Hosts',
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      [t.hosts.tableArn],
    );
    allow(fns.round, 'HostsByState', ['dynamodb:Query'], [index(t.hosts, HOSTS_TABLE.indexes.byState.name)]);
    allow(fns.round, 'Profiles', ['dynamodb:Scan'], [t.profiles.tableArn]);
    // Put and BatchGet: the segments of the queue snapshot; BatchWrite: the segments of a former count, deleted.
    allow(
      fns.round,
      'LeaseAndState',
      [
        'dynamodb:GetItem',
        'dynamodb:BatchGetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
      ],
      [t.schedulerState.tableArn],
    );
    this.grantFleetControl(fns.round, settings);

    // telemetry
    allow(fns.telemetry, 'Jobs', ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [t.jobs.tableArn]);
    // Registration updates hosts the fleet recorded; it never creates one (no PutItem).
    allow(fns.telemetry, 'Hosts', ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [t.hosts.tableArn]);
    allow(fns.telemetry, 'Profiles', ['dynamodb:UpdateItem'], [t.profiles.tableArn]);
    q.schedulerEvents.grantSendMessages(fns.telemetry);
    q.telemetryDlq.grantSendMessages(fns.telemetry);

    // fleet-events
    const fe = fns['fleet-events'];
    allow(fe, 'Jobs', ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem'], [t.jobs.tableArn]);
    // PutItem: the drain's desired-state copy keyed by the instance ARN, in the same transaction.
    allow(fe, 'Hosts', ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [t.hosts.tableArn]);
    q.schedulerEvents.grantSendMessages(fe);
  }

  /** RunInstances only from this stack's launch templates, tagging with the cluster; terminate only tagged ones. */
  private grantFleetControl(fn: NodejsFunction, settings: TesseraSettings): void {
    const arn = (resource: string) =>
      Stack.of(this).formatArn({ service: 'ec2', resource, resourceName: '*' });
    const clusterTag = { [`aws:RequestTag/${CLUSTER_TAG}`]: settings.clusterName };
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'LaunchFromOwnTemplates',
        actions: ['ec2:RunInstances'],
        resources: this.fleet.families.map((f) =>
          Stack.of(this).formatArn({
            service: 'ec2',
            resource: 'launch-template',
            resourceName: f.launchTemplate.launchTemplateId!,
          }),
        ),
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'LaunchTaggedInstances',
        actions: ['ec2:RunInstances'],
        resources: [arn('instance'), arn('volume')],
        conditions: { StringEquals: clusterTag },
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'LaunchIntoOwnNetwork',
        actions: ['ec2:RunInstances'],
        resources: [
          arn('network-interface'),
          arn('spot-instances-request'),
          ...this.fleet.subnetIds.map((id) =>
            Stack.of(this).formatArn({ service: 'ec2', resource: 'subnet', resourceName: id }),
          ),
          Stack.of(this).formatArn({
            service: 'ec2',
            resource: 'security-group',
            resourceName: this.fleet.securityGroup.securityGroupId,
          }),
          Stack.of(this).formatArn({ service: 'ec2', resource: 'image', resourceName: '*', account: '' }),
        ],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'TagAtLaunch',
        actions: ['ec2:CreateTags'],
        resources: [arn('instance'), arn('volume'), arn('spot-instances-request')],
        conditions: { StringEquals: { 'ec2:CreateAction': 'RunInstances' } },
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'TerminateOwnInstances',
        actions: ['ec2:TerminateInstances'],
        resources: [arn('instance')],
        conditions: { StringEquals: { [`ec2:ResourceTag/${CLUSTER_TAG}`]: settings.clusterName } },
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'DescribeFleet',
        actions: ['ec2:DescribeInstances', 'ec2:DescribeInstanceTopology'],
        // EC2 Describe calls support no resource-level permissions.
        resources: ['*'],
      }),
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'PassHostRoles',
        actions: ['iam:PassRole'],
        resources: this.fleet.families.map((f) => f.role.roleArn),
        conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
      }),
    );
  }
}
