import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ENV } from '../../../lib/aws/environment.ts';
import { MASTER_PORT_BASE, MASTER_PORT_RANGE } from '../../../lib/aws/round/rendezvous-ports.ts';
import { settingsFromContext } from '../../../lib/infra/props.ts';
import { TesseraStack } from '../../../lib/infra/tessera-stack.ts';

// Synthesized once for the whole file (assets not bundled, CloudFormation validation off: the CLI synth test
// in test/integration covers both).
const app = new App({
  context: {
    'aws:cdk:bundling-stacks': [],
    'tessera:instanceFamilies': 'g5,p4d',
    'tessera:alarmEmail': 'ops@example.com',
  },
  builtinCloudFormationValidation: false,
});
const stack = new TesseraStack(app, 'Tessera', {
  settings: settingsFromContext((k) => app.node.tryGetContext(k)),
});
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
app.synth();
const template = Template.fromStack(stack);
const json = template.toJSON() as {
  Resources: Record<
    string,
    { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, unknown> }
  >;
};
const resources = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);

describe('tables', () => {
  test('four tables, on-demand, point-in-time recovery, encrypted, retained', () => {
    const tables = resources('AWS::DynamoDB::Table');
    assert.equal(tables.length, 4);
    for (const [, table] of tables) {
      assert.equal(table.Properties.BillingMode, 'PAY_PER_REQUEST');
      assert.deepEqual(table.Properties.PointInTimeRecoverySpecification, {
        PointInTimeRecoveryEnabled: true,
      });
      assert.deepEqual(table.Properties.SSESpecification, { SSEEnabled: true });
    }
    template.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
  });

  test('jobs by status and by tenant, hosts by state, TTL on both', () => {
    const gsis = (id: string) =>
      (
        json.Resources[id]!.Properties.GlobalSecondaryIndexes as {
          IndexName: string;
          KeySchema: { AttributeName: string }[];
        }[]
      ).map((g) => [g.IndexName, g.KeySchema.map((k) => k.AttributeName)]);
    assert.deepEqual(gsis(logicalId(stack.tables.jobs)), [
      ['byStatus', ['status', 'submittedAt']],
      ['byTenant', ['tenant', 'submittedAt']],
      ['byChangeKeys', ['changeShard', 'changedAt']],
    ]);
    assert.deepEqual(gsis(logicalId(stack.tables.hosts)), [['byState', ['state', 'stateChangedAt']]]);
    const projections = Object.fromEntries(
      (
        json.Resources[logicalId(stack.tables.jobs)]!.Properties.GlobalSecondaryIndexes as {
          IndexName: string;
          Projection: unknown;
        }[]
      ).map((g) => [g.IndexName, g.Projection]),
    );
    // The change index holds only what tells a round which changes matter: not a second copy of every job write.
    assert.deepEqual(projections.byChangeKeys, {
      ProjectionType: 'INCLUDE',
      NonKeyAttributes: ['rev', 'status'],
    });
    assert.deepEqual(projections.byStatus, { ProjectionType: 'ALL' });
    // An upgrade from the whole-item `byChange` keeps it for one deployment, so each deployment adds or drops one index.
    const upgrading = new TesseraStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Upgrading', {
      settings: settingsFromContext((k) => (k === 'tessera:keepLegacyChangeIndex' ? 'true' : undefined)),
    });
    const upgradingIndexes = (
      Template.fromStack(upgrading).toJSON().Resources[
        upgrading.getLogicalId(upgrading.tables.jobs.node.defaultChild as never)
      ].Properties.GlobalSecondaryIndexes as { IndexName: string; Projection: unknown }[]
    ).map((g) => [g.IndexName, g.Projection]);
    assert.deepEqual(upgradingIndexes.slice(3), [['byChange', { ProjectionType: 'ALL' }]]);
    for (const table of [stack.tables.jobs, stack.tables.hosts])
      assert.deepEqual(json.Resources[logicalId(table)]!.Properties.TimeToLiveSpecification, {
        AttributeName: 'expiresAt',
        Enabled: true,
      });
    assert.deepEqual(json.Resources[logicalId(stack.tables.profiles)]!.Properties.KeySchema, [
      { AttributeName: 'signature', KeyType: 'HASH' },
      { AttributeName: 'placement', KeyType: 'RANGE' },
    ]);
  });
});

describe('queues', () => {
  test('every queue encrypted and TLS-only; each work queue redrives to its DLQ after 5 receives', () => {
    const queues = resources('AWS::SQS::Queue');
    assert.equal(queues.length, 7);
    for (const [, q] of queues) assert.equal(q.Properties.SqsManagedSseEnabled, true);
    const q = stack.queues;
    for (const [queue, dlq] of [
      [q.submissions, q.submissionsDlq],
      [q.schedulerEvents, q.schedulerEventsDlq],
      [q.telemetry, q.telemetryDlq],
    ] as const) {
      assert.deepEqual(json.Resources[logicalId(queue)]!.Properties.RedrivePolicy, {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(dlq), 'Arn'] },
        maxReceiveCount: 5,
      });
    }
    assert.equal(json.Resources[logicalId(q.schedulerEvents)]!.Properties.FifoQueue, true);
    assert.equal(json.Resources[logicalId(q.schedulerEventsDlq)]!.Properties.FifoQueue, true);
    const policies = resources('AWS::SQS::QueuePolicy');
    assert.equal(policies.length, 7);
    for (const [, p] of policies) {
      const statements = (
        p.Properties.PolicyDocument as { Statement: { Effect: string; Condition?: unknown }[] }
      ).Statement;
      assert.ok(
        statements.some(
          (s) =>
            s.Effect === 'Deny' && JSON.stringify(s.Condition) === '{"Bool":{"aws:SecureTransport":"false"}}',
        ),
      );
    }
  });

  test('visibility timeouts are six times the consumer timeout', () => {
    assert.equal(json.Resources[logicalId(stack.queues.telemetry)]!.Properties.VisibilityTimeout, 180);
    assert.equal(json.Resources[logicalId(stack.queues.schedulerEvents)]!.Properties.VisibilityTimeout, 300);
  });
});

describe('functions', () => {
  const tessera = () =>
    resources('AWS::Lambda::Function').filter(
      ([, f]) =>
        (f.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.[
          ENV.functionKind
        ],
    );

  test('five handlers on Node 22, arm64', () => {
    assert.equal(tessera().length, 5);
    for (const [, fn] of tessera()) {
      assert.equal(fn.Properties.Runtime, 'nodejs22.x');
      assert.deepEqual(fn.Properties.Architectures, ['arm64']);
      assert.equal(fn.Properties.Handler, 'index.handler');
    }
  });

  test('each gets only the variables it reads', () => {
    const vars = Object.fromEntries(
      tessera().map(([, f]) => {
        const v = (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
        return [
          v[ENV.functionKind],
          Object.keys(v)
            .filter((k) => k.startsWith('TESSERA_') && k !== ENV.functionKind)
            .sort(),
        ];
      }),
    );
    const tables = [ENV.jobsTable, ENV.hostsTable, ENV.hostArnPrefix, ENV.profilesTable, ENV.stateTable];
    assert.deepEqual(vars, {
      api: [...tables, ENV.schedulerEventsQueueUrl, ENV.bucket].sort(),
      ingest: [...tables, ENV.schedulerEventsQueueUrl, ENV.submissionsDlqUrl].sort(),
      round: [
        ...tables,
        ENV.clusterName,
        ENV.checkpointRoot,
        ENV.policy,
        ENV.roundSeconds,
        ENV.fleet,
        ENV.hostDataRoleArn,
        'TESSERA_DATA_DIR',
      ].sort(),
      telemetry: [...tables, ENV.schedulerEventsQueueUrl, ENV.telemetryDlqUrl].sort(),
      'fleet-events': [...tables, ENV.clusterName, ENV.schedulerEventsQueueUrl].sort(),
    });
  });

  test('SQS event sources: batches, windows and partial batch responses', () => {
    const mappings = resources('AWS::Lambda::EventSourceMapping').map(([, m]) => [
      (m.Properties.EventSourceArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0],
      m.Properties.BatchSize,
      m.Properties.MaximumBatchingWindowInSeconds,
      m.Properties.FunctionResponseTypes,
    ]);
    const q = stack.queues;
    assert.deepEqual(
      new Set(mappings.map((m) => JSON.stringify(m))),
      new Set([
        JSON.stringify([logicalId(q.submissions), 10, 5, ['ReportBatchItemFailures']]),
        JSON.stringify([logicalId(q.telemetry), 100, 20, ['ReportBatchItemFailures']]),
        JSON.stringify([logicalId(q.schedulerEvents), 10, undefined, undefined]),
      ]),
    );
  });

  test('asynchronous failures go to the events DLQ', () => {
    const configs = resources('AWS::Lambda::EventInvokeConfig');
    assert.equal(configs.length, 2);
    for (const [, c] of configs) {
      assert.equal(c.Properties.MaximumRetryAttempts, 2);
      assert.deepEqual(c.Properties.DestinationConfig, {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.queues.eventsDlq), 'Arn'] } },
      });
    }
  });
});

describe('least privilege', () => {
  /** Every IAM action granted to a function's role, with the resources of each statement. */
  const grants = (kind: keyof typeof stack.functions) => {
    const roleId = stack.getLogicalId(stack.functions[kind].role!.node.defaultChild as never);
    const statements = resources('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap(
        ([, p]) =>
          (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] })
            .Statement,
      );
    return statements.map((s) => ({ actions: [s.Action].flat(), resources: [s.Resource].flat() }));
  };
  const actions = (kind: keyof typeof stack.functions) =>
    [...new Set(grants(kind).flatMap((g) => g.actions))].sort();
  const sqsSend = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
  const sqsConsume = [
    'sqs:ChangeMessageVisibility',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
    'sqs:GetQueueUrl',
    'sqs:ReceiveMessage',
  ];
  const sorted = (...lists: string[][]) => [...new Set(lists.flat())].sort();

  test('api', () => {
    assert.deepEqual(
      actions('api'),
      sorted(
        ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        ['s3:GetObject', 's3:ListBucket'],
        sqsSend,
      ),
    );
  });
  test('api reads worker logs only: objects under jobs/*/logs/, listing only those prefixes', () => {
    const s3 = grants('api').filter((g) => g.actions.some((a) => a.startsWith('s3:')));
    const text = JSON.stringify(s3);
    assert.equal(s3.length, 2);
    assert.ok(text.includes('/jobs/*/logs/*'), text);
    assert.ok(!/"s3:(PutObject|DeleteObject)"/.test(text));
    const list = resources('AWS::IAM::Policy')
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
      .find((s) => s.Sid === 'ListJobLogs');
    assert.deepEqual(list?.Condition, { StringLike: { 's3:prefix': ['jobs/*/logs/', 'jobs/*/logs/*'] } });
    const api = json.Resources[logicalId(stack.functions.api)]!.Properties;
    assert.deepEqual((api.Environment as { Variables: Record<string, unknown> }).Variables[ENV.bucket], {
      Ref: logicalId(stack.storage.bucket),
    });
  });
  test('ingest', () => {
    assert.deepEqual(
      actions('ingest'),
      sorted(['dynamodb:GetItem', 'dynamodb:PutItem'], sqsSend, sqsConsume),
    );
  });
  test('round', () => {
    assert.deepEqual(
      actions('round'),
      sorted(
        [
          'dynamodb:BatchGetItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:ConditionCheckItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
          'dynamodb:Scan',
          'dynamodb:UpdateItem',
        ],
        [
          'ec2:CreateTags',
          'ec2:DescribeInstanceTopology',
          'ec2:DescribeInstances',
          'ec2:RunInstances',
          'ec2:TerminateInstances',
          'iam:PassRole',
        ],
        ['sts:AssumeRole'], // the HostDataRole, to vend each host credentials for its own jobs
        sqsConsume,
        ['sqs:SendMessage'], // failed asynchronous invocations → the events DLQ
      ),
    );
  });
  test('telemetry', () => {
    assert.deepEqual(
      actions('telemetry'),
      sorted(['dynamodb:GetItem', 'dynamodb:UpdateItem'], sqsSend, sqsConsume),
    );
  });
  test('fleet-events', () => {
    assert.deepEqual(
      actions('fleet-events'),
      sorted(
        ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        sqsSend,
      ),
    );
  });

  test('no wildcard actions anywhere, and "*" resources only for EC2 Describe calls', () => {
    for (const [, policy] of resources('AWS::IAM::Policy')) {
      for (const s of (
        policy.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }
      ).Statement) {
        for (const action of [s.Action].flat())
          assert.ok(!/^\*$|:\*$/.test(action), `wildcard action ${action}`);
        if ([s.Resource].flat().includes('*'))
          assert.ok(
            [s.Action].flat().every((a) => /^ec2:Describe/.test(a)),
            `"*" resource for ${JSON.stringify(s.Action)}`,
          );
      }
    }
  });

  test('instances are terminated only when tagged with the cluster; roles passed only to EC2', () => {
    const round = grants('round');
    const terminate = resources('AWS::IAM::Policy')
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
      .find((s) => s.Action === 'ec2:TerminateInstances');
    assert.deepEqual(terminate?.Condition, {
      StringEquals: { 'ec2:ResourceTag/tessera:cluster': 'tessera' },
    });
    assert.ok(round.some((g) => g.actions.includes('iam:PassRole')));
  });

  test('host instance roles: only their own desired-state item (keyed by their instance ARN) and attributes', () => {
    const roleIds = stack.fleet.families.map((f) => stack.getLogicalId(f.role.node.defaultChild as never));
    const hostPolicies = resources('AWS::IAM::Policy').filter(([, p]) =>
      roleIds.some((id) => JSON.stringify(p.Properties.Roles).includes(id)),
    );
    assert.equal(hostPolicies.length, 2, 'one role per family');
    const statements = (
      hostPolicies[0]![1].Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
    ).Statement;
    const read = statements.find((s) => s.Sid === 'ReadOwnDesiredState');
    assert.equal(read?.Action, 'dynamodb:GetItem');
    assert.deepEqual(read?.Condition, {
      'ForAllValues:StringEquals': {
        'dynamodb:LeadingKeys': ['${ec2:SourceInstanceARN}'],
        'dynamodb:Attributes': ['hostId', 'desired', 'dataCredentials'],
      },
      StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
    });
    const dynamodb = statements.filter((s) =>
      [s.Action].flat().some((a) => String(a).startsWith('dynamodb:')),
    );
    assert.deepEqual(dynamodb, [read], 'no other DynamoDB access: a host reads no other host’s item');
    // The copy the agent reads is keyed by the ARN the condition names: prefix + instance id.
    const round = resources('AWS::Lambda::Function').find(
      ([, f]) =>
        (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables[ENV.functionKind] ===
        'round',
    )!;
    const prefix = JSON.stringify(
      (round[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables[
        ENV.hostArnPrefix
      ],
    );
    assert.match(prefix, /arn:.*AWS::Partition.*:ec2:.*AWS::Region.*:.*AWS::AccountId.*:instance\//);
    const actionsOf = statements.flatMap((s) => [s.Action].flat());
    assert.ok(
      !actionsOf.some((a) => /dynamodb:(Put|Update|Delete|Scan|Query)/.test(String(a))),
      'hosts never write tables',
    );
    // Job data (checkpoints, logs): none; see 'least privilege for hosts' below.
  });
});

describe('least privilege for hosts: job data only through per-host vended credentials', () => {
  type Statement = {
    Sid?: string;
    Effect: string;
    Action: string | string[];
    Resource: unknown;
    Condition?: unknown;
    Principal?: unknown;
  };
  const policiesOf = (role: { node: { defaultChild?: unknown } }) => {
    const roleId = stack.getLogicalId(role.node.defaultChild as never);
    return resources('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  };
  const s3Resources = (statements: Statement[]) =>
    statements
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('s3:')))
      .flatMap((s) => [s.Resource].flat().map((r) => JSON.stringify(r)));
  const hostDataRoleId = logicalId(stack.hostData.role);

  test('instance roles have no S3 right on jobs/ or workdirs/ (only reading agent/), and cannot assume the data role', () => {
    for (const family of stack.fleet.families) {
      const statements = policiesOf(family.role);
      const s3 = s3Resources(statements);
      assert.ok(s3.length > 0);
      for (const r of s3) assert.match(r, /\/agent\/\*"\]\]\}$/, `instance role reaches ${r}`);
      assert.ok(!JSON.stringify(statements).includes('jobs/'), 'no statement names jobs/');
      assert.ok(!JSON.stringify(statements).includes('sts:'), 'no STS rights');
      assert.ok(!JSON.stringify(statements).includes(hostDataRoleId));
    }
  });

  test('only the round function may assume the HostDataRole', () => {
    const trust = json.Resources[hostDataRoleId]!.Properties.AssumeRolePolicyDocument as {
      Statement: Statement[];
    };
    const roundRoleId = stack.getLogicalId(stack.functions.round.role!.node.defaultChild as never);
    assert.equal(trust.Statement.length, 1);
    assert.equal(trust.Statement[0]!.Action, 'sts:AssumeRole');
    assert.deepEqual(trust.Statement[0]!.Principal, { AWS: { 'Fn::GetAtt': [roundRoleId, 'Arn'] } });
    const assumers = resources('AWS::IAM::Policy')
      .filter(([, p]) =>
        (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement.some(
          (s) =>
            [s.Action].flat().includes('sts:AssumeRole') &&
            JSON.stringify(s.Resource).includes(hostDataRoleId),
        ),
      )
      .map(([, p]) => JSON.stringify(p.Properties.Roles));
    assert.deepEqual(assumers, [JSON.stringify([{ Ref: roundRoleId }])]);
    const roundEnv = resources('AWS::Lambda::Function')
      .map(([, f]) => (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables)
      .find((v) => v[ENV.functionKind] === 'round')!;
    assert.deepEqual(roundEnv[ENV.hostDataRoleArn], { 'Fn::GetAtt': [hostDataRoleId, 'Arn'] });
  });

  test('the HostDataRole: read/write/delete jobs/*, list only under jobs/, read workdirs/*; nothing else', () => {
    const statements = policiesOf(stack.hostData.role);
    const bucketId = logicalId(stack.storage.bucket);
    const objects = (prefix: string) => ({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${prefix}/*`]],
    });
    assert.deepEqual(
      statements.map((s) => ({ Sid: s.Sid, Action: s.Action, Resource: s.Resource, Condition: s.Condition })),
      [
        {
          Sid: 'JobData',
          Action: [
            's3:GetObject',
            's3:PutObject',
            's3:DeleteObject',
            's3:AbortMultipartUpload',
            's3:PutObjectTagging',
          ],
          Resource: objects('jobs'),
          Condition: undefined,
        },
        {
          Sid: 'ListJobData',
          Action: 's3:ListBucket',
          Resource: { 'Fn::GetAtt': [bucketId, 'Arn'] },
          Condition: { StringLike: { 's3:prefix': ['jobs/*'] } },
        },
        {
          Sid: 'ReadWorkingDirectories',
          Action: 's3:GetObject',
          Resource: objects('workdirs'),
          Condition: undefined,
        },
      ],
    );
    assert.equal(
      json.Resources[hostDataRoleId]!.Properties.MaxSessionDuration,
      undefined,
      'one hour (the default)',
    );
  });
});

describe('EventBridge', () => {
  test('a round every interval; EC2 state changes and Spot warnings to fleet-events, each with a DLQ', () => {
    const rules = resources('AWS::Events::Rule').map(([, r]) => r.Properties);
    const fnId = (kind: keyof typeof stack.functions) =>
      stack.getLogicalId(stack.functions[kind].node.defaultChild as never);
    const target = (r: Record<string, unknown>) =>
      (r.Targets as { Arn: { 'Fn::GetAtt': string[] }; DeadLetterConfig?: unknown }[])[0]!;
    const schedule = rules.find((r) => r.ScheduleExpression);
    assert.equal(schedule?.ScheduleExpression, 'rate(1 minute)');
    assert.equal(target(schedule!).Arn['Fn::GetAtt'][0], fnId('round'));
    const patterns = rules
      .filter((r) => r.EventPattern)
      .map((r) => [
        (r.EventPattern as { 'detail-type': string[] })['detail-type'][0],
        target(r).Arn['Fn::GetAtt'][0],
      ]);
    assert.deepEqual(patterns, [
      ['EC2 Instance State-change Notification', fnId('fleet-events')],
      ['EC2 Spot Instance Interruption Warning', fnId('fleet-events')],
    ]);
    for (const r of rules) assert.ok(target(r).DeadLetterConfig, 'every target has a DLQ');
  });
});

describe('API', () => {
  test('seven IAM-authorised methods on one Lambda proxy', () => {
    const methods = resources('AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.HttpMethod !== 'OPTIONS',
    );
    assert.equal(methods.length, 7);
    for (const [, m] of methods) {
      assert.equal(m.Properties.AuthorizationType, 'AWS_IAM');
      assert.equal((m.Properties.Integration as { Type: string }).Type, 'AWS_PROXY');
    }
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v1',
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: [Match.objectLike({ LoggingLevel: 'ERROR', MetricsEnabled: true })],
    });
  });
});

describe('fleet', () => {
  test('a launch template per family: GPU AMI, IMDSv2 only, encrypted root volume, instance profile, agent user data', () => {
    const templates = resources('AWS::EC2::LaunchTemplate');
    assert.equal(templates.length, 2);
    for (const [, lt] of templates) {
      const data = lt.Properties.LaunchTemplateData as Record<string, Record<string, unknown> & unknown[]>;
      assert.equal((data.MetadataOptions as Record<string, unknown>).HttpTokens, 'required');
      const ebs = (data.BlockDeviceMappings as unknown as { Ebs: Record<string, unknown> }[])[0]!.Ebs;
      assert.equal(ebs.Encrypted, true);
      assert.equal(ebs.VolumeType, 'gp3');
      assert.ok(data.IamInstanceProfile);
      const userData = JSON.stringify(data.UserData);
      assert.ok(
        userData.startsWith('{"Fn::Base64":{"Fn::Join":["",["#!/bin/bash\\n'),
        'the script starts with its shebang',
      );
      assert.ok(
        userData.includes('tessera-agent') && !/@@[A-Z0-9_]+@@/.test(userData),
        'placeholders substituted',
      );
      assert.ok(
        userData.includes(logicalId(stack.tables.hosts)) &&
          userData.includes(logicalId(stack.queues.telemetry)),
      );
    }
    assert.ok(Object.keys(json).length > 0);
    const amiParameter = Object.values(
      (template.toJSON() as { Parameters: Record<string, { Default?: string }> }).Parameters,
    ).find((p) => p.Default?.includes('deeplearning'));
    assert.ok(amiParameter, 'Deep Learning AMI from its public SSM parameter');
  });

  test('the fleet configuration names every family’s launch template and catalog instance types', () => {
    const round = resources('AWS::Lambda::Function').find(([, f]) =>
      JSON.stringify(f.Properties).includes(ENV.fleet),
    )![1];
    const fleet = JSON.stringify(
      (round.Properties.Environment as { Variables: Record<string, unknown> }).Variables[ENV.fleet],
    );
    for (const fragment of ['g5.xlarge', 'g5.48xlarge', 'p4d.24xlarge', 'spot', 'budgetPerHour'])
      assert.ok(fleet.includes(fragment), fragment);
  });
});

describe('storage and alarms', () => {
  test('bucket: encrypted, no public access, TLS only, logs, lifecycle', () => {
    const bucket = json.Resources[logicalId(stack.storage.bucket)]!.Properties;
    assert.ok(bucket.BucketEncryption);
    assert.deepEqual(bucket.PublicAccessBlockConfiguration, {
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    assert.ok(bucket.LoggingConfiguration);
    const rules = (bucket.LifecycleConfiguration as { Rules: { Id: string }[] }).Rules.map((r) => r.Id);
    assert.deepEqual(rules, ['expire-old-job-data', 'expire-job-logs', 'abort-incomplete-uploads']);
    for (const [, p] of resources('AWS::S3::BucketPolicy'))
      assert.ok(JSON.stringify(p.Properties.PolicyDocument).includes('"aws:SecureTransport":"false"'));
  });

  test('an alarm on every DLQ and on round errors, all notifying the encrypted topic', () => {
    const alarms = resources('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    assert.equal(alarms.length, 5);
    const dlqAlarms = alarms.filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    assert.equal(dlqAlarms.length, 4);
    assert.ok(alarms.some((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda'));
    const topicId = stack.getLogicalId(stack.alarms.topic.node.defaultChild as never);
    for (const a of alarms) assert.deepEqual(a.AlarmActions, [{ Ref: topicId }]);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });
});

describe('cdk-nag AwsSolutions', () => {
  test('no unsuppressed findings', () => {
    const findings = [
      ...Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*')),
      ...Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')),
    ];
    assert.deepEqual(
      findings.map((f) => `${f.id}: ${String(f.entry.data).slice(0, 120)}`),
      [],
    );
  });

  test('every suppression gives a reason', () => {
    const suppressions = Object.values(json.Resources).flatMap(
      (r) =>
        (r.Metadata?.cdk_nag as { rules_to_suppress?: { id: string; reason: string }[] } | undefined)
          ?.rules_to_suppress ?? [],
    );
    assert.ok(suppressions.length > 0);
    for (const s of suppressions)
      assert.ok(s.reason.length >= 20, `${s.id} has no real reason: "${s.reason}"`);
  });

  test('the checks run on the stack itself (a finding is not silently absent)', () => {
    const probe = new App({
      context: { 'aws:cdk:bundling-stacks': [] },
      builtinCloudFormationValidation: false,
    });
    const bare = new Stack(probe, 'Probe');
    new Queue(bare, 'Plain');
    Aspects.of(probe).add(new AwsSolutionsChecks());
    probe.synth();
    assert.ok(
      Annotations.fromStack(bare).findError('*', Match.stringLikeRegexp('AwsSolutions-SQS3')).length > 0,
    );
  });
});

describe('every resource', () => {
  test('the template holds exactly these resources (a change here must be deliberate)', () => {
    const counts: Record<string, number> = {};
    for (const r of Object.values(json.Resources)) counts[r.Type] = (counts[r.Type] ?? 0) + 1;
    assert.deepEqual(counts, {
      'AWS::ApiGateway::Account': 1,
      'AWS::ApiGateway::Deployment': 1,
      'AWS::ApiGateway::Method': 7,
      'AWS::ApiGateway::RequestValidator': 1,
      'AWS::ApiGateway::Resource': 5,
      'AWS::ApiGateway::RestApi': 1,
      'AWS::ApiGateway::Stage': 1,
      'AWS::CloudWatch::Alarm': 5,
      'AWS::DynamoDB::Table': 4,
      'AWS::EC2::FlowLog': 1,
      'AWS::EC2::InternetGateway': 1,
      'AWS::EC2::LaunchTemplate': 2,
      'AWS::EC2::Route': 2,
      'AWS::EC2::RouteTable': 2,
      'AWS::EC2::SecurityGroup': 1,
      'AWS::EC2::SecurityGroupIngress': 1,
      'AWS::EC2::Subnet': 2,
      'AWS::EC2::SubnetRouteTableAssociation': 2,
      'AWS::EC2::VPC': 1,
      'AWS::EC2::VPCEndpoint': 2,
      'AWS::EC2::VPCGatewayAttachment': 1,
      'AWS::Events::Rule': 3,
      'AWS::IAM::InstanceProfile': 2,
      'AWS::IAM::Policy': 10,
      'AWS::IAM::Role': 11,
      'AWS::Lambda::EventInvokeConfig': 2,
      'AWS::Lambda::EventSourceMapping': 3,
      'AWS::Lambda::Function': 6,
      'AWS::Lambda::LayerVersion': 1,
      'AWS::Lambda::Permission': 17,
      'AWS::Logs::LogGroup': 7,
      'AWS::S3::Bucket': 2,
      'AWS::S3::BucketPolicy': 2,
      'AWS::SNS::Subscription': 1,
      'AWS::SNS::Topic': 1,
      'AWS::SNS::TopicPolicy': 1,
      'AWS::SQS::Queue': 7,
      'AWS::SQS::QueuePolicy': 7,
      'Custom::CDKBucketDeployment': 1,
    });
  });

  test('network: public subnets without NAT, free gateway endpoints, rejected-traffic flow logs, hosts reachable only from hosts', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    for (const [, subnet] of resources('AWS::EC2::Subnet'))
      assert.equal(subnet.Properties.MapPublicIpOnLaunch, true);
    const endpoints = resources('AWS::EC2::VPCEndpoint').map(([, e]): [unknown, string] => [
      e.Properties.VpcEndpointType,
      JSON.stringify(e.Properties.ServiceName),
    ]);
    assert.ok(endpoints.every(([type]) => type === 'Gateway'));
    assert.ok(
      endpoints.some(([, name]) => name?.includes('.s3')) &&
        endpoints.some(([, name]) => name?.includes('.dynamodb')),
    );
    template.hasResourceProperties('AWS::EC2::FlowLog', {
      TrafficType: 'REJECT',
      LogDestinationType: 'cloud-watch-logs',
    });
    const sg =
      json.Resources[stack.getLogicalId(stack.fleet.securityGroup.node.defaultChild as never)]!.Properties;
    assert.equal(sg.SecurityGroupIngress, undefined, 'no inline ingress');
    const ingresses = resources('AWS::EC2::SecurityGroupIngress');
    assert.equal(ingresses.length, 1);
    const ingress = ingresses[0]![1];
    assert.deepEqual(ingress.Properties.SourceSecurityGroupId, ingress.Properties.GroupId);
    // Multi-node gangs: every rendezvous port the round hands out, and the ephemeral ports gloo and NCCL
    // connect back on, are open between hosts of the cluster (and only between them).
    const [from, to] = [Number(ingress.Properties.FromPort), Number(ingress.Properties.ToPort)];
    assert.equal(ingress.Properties.IpProtocol, 'tcp');
    assert.ok(from <= MASTER_PORT_BASE && to >= MASTER_PORT_BASE + MASTER_PORT_RANGE - 1, `${from}-${to}`);
    assert.ok(from <= 32768 && to >= 60999, `${from}-${to}`);
    assert.equal(ingress.Properties.CidrIp, undefined);
  });

  test('every log group has a retention; instance profiles carry the family roles; the agent bundle goes to agent/', () => {
    for (const [id, group] of resources('AWS::Logs::LogGroup'))
      assert.ok(Number(group.Properties.RetentionInDays) > 0, id);
    const roleIds = stack.fleet.families.map((f) => stack.getLogicalId(f.role.node.defaultChild as never));
    const profiles = resources('AWS::IAM::InstanceProfile').map(([, p]) =>
      JSON.stringify(p.Properties.Roles),
    );
    assert.deepEqual(profiles.sort(), roleIds.map((id) => JSON.stringify([{ Ref: id }])).sort());
    template.hasResourceProperties('Custom::CDKBucketDeployment', { DestinationBucketKeyPrefix: 'agent' });
    template.hasResourceProperties('AWS::ApiGateway::RequestValidator', { ValidateRequestParameters: true });
  });
});
