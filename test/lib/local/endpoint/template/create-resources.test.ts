import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { HeadBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  GetQueueAttributesCommand,
  ListQueueTagsCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { EventBridgeJsonClient } from '../../../../../lib/local/endpoint/events/client.ts';
import { type LocalEndpoint, startLocalEndpoint } from '../../../../../lib/local/endpoint/server.ts';
import {
  createResourcesFromTemplate,
  type TemplateClients,
  type TemplateResources,
} from '../../../../../lib/local/endpoint/template/create-resources.ts';
import { clientConfig } from '../helpers.ts';

const template = JSON.parse(
  readFileSync(new URL('./fixtures/tessera-stack.template.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** Clients that fail the test if anything is called: for templates rejected before any API call. */
const untouchable = new Proxy(
  {},
  {
    get: () => () => assert.fail('no AWS call expected'),
  },
) as unknown as TemplateClients;

describe('createResourcesFromTemplate: input checks (no endpoint needed)', () => {
  test('rejects a template without Resources, naming the field', async () => {
    await assert.rejects(createResourcesFromTemplate({ Outputs: {} }, untouchable), /template\.Resources/);
  });

  test('rejects a resource without a Type, naming its logical id', async () => {
    await assert.rejects(
      createResourcesFromTemplate({ Resources: { Broken: { Properties: {} } } }, untouchable),
      /template\.Resources\.Broken/,
    );
  });

  test('detects circular references before creating anything', async () => {
    const cyclic = {
      Resources: {
        A: {
          Type: 'AWS::SQS::Queue',
          Properties: { RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['B', 'Arn'] } } },
        },
        B: {
          Type: 'AWS::SQS::Queue',
          Properties: { RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['A', 'Arn'] } } },
        },
      },
    };
    await assert.rejects(
      createResourcesFromTemplate(cyclic, untouchable),
      /circular references between A → B → A/,
    );
  });
});

describe('createResourcesFromTemplate against the local endpoint', () => {
  let endpoint: LocalEndpoint;
  let dynamodb: DynamoDBClient;
  let sqs: SQSClient;
  let ec2: EC2Client;
  let s3: S3Client;
  let clients: TemplateClients;
  let created: TemplateResources;

  before(async () => {
    endpoint = await startLocalEndpoint({ port: 0, ec2: { pendingMs: 20, shuttingDownMs: 20 } });
    dynamodb = new DynamoDBClient(clientConfig(endpoint.url));
    sqs = new SQSClient(clientConfig(endpoint.url));
    ec2 = new EC2Client(clientConfig(endpoint.url));
    s3 = new S3Client({ ...clientConfig(endpoint.url), forcePathStyle: true });
    clients = { dynamodb, sqs, ec2, s3, events: new EventBridgeJsonClient(clientConfig(endpoint.url)) };
    created = await createResourcesFromTemplate(template, clients, { stackName: 'TesseraLocal' });
  });

  after(async () => {
    for (const client of [dynamodb, sqs, ec2, s3]) client?.destroy();
    await endpoint?.stop();
  });

  test('maps logical ids to deterministic physical names', () => {
    const names = Object.fromEntries(Object.entries(created.resources).map(([id, r]) => [id, r.name]));
    assert.deepEqual(names, {
      JobsTable1A2B3C4D: 'tessera-jobs',
      HostsTable5E6F7A8B: 'TesseraLocal-HostsTable5E6F7A8B',
      SchedulerEventsDlq9A8B7C6D: 'TesseraLocal-SchedulerEventsDlq9A8B7C6D.fifo',
      SchedulerEventsQueue1F2E3D4C: 'TesseraLocal-SchedulerEventsQueue1F2E3D4C.fifo',
      TelemetryDlq4B5C6D7E: 'TesseraLocal-TelemetryDlq4B5C6D7E',
      TelemetryQueue8E9F0A1B: 'TesseraLocal-TelemetryQueue8E9F0A1B',
      SubmissionsQueue2C3D4E5F: 'TesseraLocal-submissions',
      RoundSchedule8A9B0C1D: 'TesseraLocal-RoundSchedule8A9B0C1D',
      Ec2StateChangeRule6B7C8D9E: 'tessera-ec2-state',
      GpuLaunchTemplateP4d7D8E9F0A: 'tessera-p4d',
      LocalOnlyQueue7A8B9C0D: 'TesseraLocal-LocalOnlyQueue7A8B9C0D',
      AgentBucket6A7B8C9D: 'tesseralocal-agentbucket6a7b8c9d',
    });
    const submissions = created.resources.SubmissionsQueue2C3D4E5F!;
    assert.equal(submissions.url, `${endpoint.url}/000000000000/TesseraLocal-submissions`);
    assert.equal(submissions.arn, 'arn:aws:sqs:us-east-1:000000000000:TesseraLocal-submissions');
    assert.equal(submissions.type, 'AWS::SQS::Queue');
  });

  test('lists skipped resources, with Lambda identities for rule targets', () => {
    const skipped = Object.fromEntries(created.skipped.map((s) => [s.logicalId, s]));
    assert.deepEqual(Object.keys(skipped).sort(), [
      'AgentInstanceProfile3F4A5B6C',
      'FleetEventsFunction4C5D6E7F',
      'RoundFunction0E1F2A3B',
      'RoundFunctionServiceRoleA1B2C3D4',
      'RoundScheduleAllowEventRule2E3F4A5B',
      'TelemetryKey0C1D2E3F',
    ]);
    assert.equal(
      skipped.RoundFunction0E1F2A3B?.arn,
      'arn:aws:lambda:us-east-1:000000000000:function:TesseraLocal-RoundFunction0E1F2A3B',
    );
    assert.equal(skipped.FleetEventsFunction4C5D6E7F?.name, 'tessera-fleet-events');
    assert.equal(skipped.TelemetryKey0C1D2E3F?.reason, 'resource type not emulated locally');
  });

  test('buckets exist in the local S3 under their generated name; server-side settings are noted', async () => {
    const bucket = created.resources.AgentBucket6A7B8C9D!;
    assert.equal(bucket.arn, 'arn:aws:s3:::tesseralocal-agentbucket6a7b8c9d');
    await s3.send(new HeadBucketCommand({ Bucket: bucket.name }));
    await s3.send(new PutObjectCommand({ Bucket: bucket.name, Key: 'agent/x', Body: 'x' }));
    assert.ok(created.notes.some((n) => /AgentBucket6A7B8C9D.*BucketEncryption ignored/.test(n)));
    const again = await createResourcesFromTemplate(template, clients, { stackName: 'TesseraLocal' });
    assert.equal(again.resources.AgentBucket6A7B8C9D?.existed, true);
  });

  test('tables have their GSIs, TTL and streams', async () => {
    const jobs = (await dynamodb.send(new DescribeTableCommand({ TableName: 'tessera-jobs' }))).Table;
    assert.equal(jobs?.BillingModeSummary?.BillingMode, 'PAY_PER_REQUEST');
    assert.deepEqual(jobs?.GlobalSecondaryIndexes?.map((g) => g.IndexName).sort(), ['byStatus', 'byTenant']);
    assert.equal(created.resources.JobsTable1A2B3C4D?.arn, jobs?.TableArn);
    const ttl = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: 'tessera-jobs' }));
    assert.equal(ttl.TimeToLiveDescription?.TimeToLiveStatus, 'ENABLED');
    assert.equal(ttl.TimeToLiveDescription?.AttributeName, 'expiresAt');
    const hosts = (
      await dynamodb.send(new DescribeTableCommand({ TableName: 'TesseraLocal-HostsTable5E6F7A8B' }))
    ).Table;
    assert.equal(hosts?.StreamSpecification?.StreamViewType, 'NEW_AND_OLD_IMAGES');
    assert.equal(created.resources.HostsTable5E6F7A8B?.streamArn, hosts?.LatestStreamArn);
  });

  test('queues get FIFO attributes, timeouts and redrive policies resolved to DLQ ARNs', async () => {
    const main = created.resources.SchedulerEventsQueue1F2E3D4C!;
    const dlq = created.resources.SchedulerEventsDlq9A8B7C6D!;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: main.url, AttributeNames: ['All'] }),
    );
    assert.equal(Attributes?.FifoQueue, 'true');
    assert.equal(Attributes?.ContentBasedDeduplication, 'true');
    assert.equal(Attributes?.VisibilityTimeout, '120');
    assert.deepEqual(JSON.parse(Attributes?.RedrivePolicy ?? '{}'), {
      deadLetterTargetArn: dlq.arn,
      maxReceiveCount: 1,
    });

    // The resolved policy works: after one receive the message lands in the DLQ.
    await sqs.send(
      new SendMessageCommand({ QueueUrl: main.url, MessageBody: 'round?', MessageGroupId: 'rounds' }),
    );
    const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: main.url, VisibilityTimeout: 0 }));
    assert.equal(first.Messages?.[0]?.Body, 'round?');
    const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl: main.url, VisibilityTimeout: 0 }));
    assert.equal(again.Messages?.length ?? 0, 0);
    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.url, WaitTimeSeconds: 1 }));
    assert.equal(dead.Messages?.[0]?.Body, 'round?');

    const telemetry = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: created.resources.TelemetryQueue8E9F0A1B!.url,
        AttributeNames: ['All'],
      }),
    );
    assert.equal(telemetry.Attributes?.VisibilityTimeout, '60');
    assert.equal(telemetry.Attributes?.KmsMasterKeyId, undefined, 'an unresolvable KMS key is left out');
    const tags = await sqs.send(
      new ListQueueTagsCommand({ QueueUrl: created.resources.SubmissionsQueue2C3D4E5F!.url }),
    );
    assert.deepEqual(tags.Tags, { 'tessera:component': 'ingest' });
  });

  test('rules carry schedules, patterns and resolved targets', () => {
    const rules = Object.fromEntries(endpoint.events.listAllRules().map((r) => [r.Name, r]));
    const schedule = rules['TesseraLocal-RoundSchedule8A9B0C1D'];
    assert.equal(schedule?.ScheduleExpression, 'rate(1 minute)');
    assert.deepEqual(schedule?.Targets, [
      {
        Id: 'Target0',
        Arn: 'arn:aws:lambda:us-east-1:000000000000:function:TesseraLocal-RoundFunction0E1F2A3B',
      },
    ]);
    const ec2Rule = rules['tessera-ec2-state'];
    assert.deepEqual(JSON.parse(ec2Rule?.EventPattern ?? '{}').source, ['aws.ec2']);
    assert.deepEqual(ec2Rule?.Targets, [
      { Id: 'Target0', Arn: 'arn:aws:lambda:us-east-1:000000000000:function:tessera-fleet-events' },
      {
        Id: 'Target1',
        Arn: created.resources.SchedulerEventsQueue1F2E3D4C?.arn,
        SqsParameters: { MessageGroupId: 'rounds' },
        InputPath: '$.detail',
      },
    ]);
    assert.equal(created.resources.Ec2StateChangeRule6B7C8D9E?.arn, ec2Rule?.Arn);
  });

  test('launch templates are created and usable by RunInstances', async () => {
    const lt = created.resources.GpuLaunchTemplateP4d7D8E9F0A!;
    assert.match(lt.id ?? '', /^lt-/);
    const run = await ec2.send(
      new RunInstancesCommand({ MinCount: 1, MaxCount: 1, LaunchTemplate: { LaunchTemplateId: lt.id } }),
    );
    const instance = run.Instances?.[0];
    assert.equal(instance?.InstanceType, 'p4d.24xlarge');
    assert.match(instance?.ImageId ?? '', /^ami-[0-9a-f]{17}$/);
    assert.deepEqual(
      instance?.Tags?.find((t) => t.Key === 'tessera:cluster'),
      { Key: 'tessera:cluster', Value: 'TesseraLocal' },
    );
  });

  test('notes every property not applied locally', () => {
    const expected = [
      /JobsTable1A2B3C4D \(AWS::DynamoDB::Table\) property PointInTimeRecoverySpecification ignored/,
      /JobsTable1A2B3C4D \(AWS::DynamoDB::Table\) property SSESpecification ignored/,
      /JobsTable1A2B3C4D GlobalSecondaryIndexes\[byTenant\]\.ContributorInsightsSpecification ignored/,
      /TelemetryQueue8E9F0A1B \(AWS::SQS::Queue\) property KmsMasterKeyId ignored: Fn::GetAtt TelemetryKey0C1D2E3F\.Arn/,
      /Ec2StateChangeRule6B7C8D9E \(AWS::Events::Rule\) property Targets\[2\] ignored: Fn::GetAtt SomeMissingThing\.Arn/,
      /GpuLaunchTemplateP4d7D8E9F0A \(AWS::EC2::LaunchTemplate\) property LaunchTemplateData\.IamInstanceProfile ignored/,
    ];
    for (const pattern of expected) {
      assert.ok(
        created.notes.some((n) => pattern.test(n)),
        `missing note ${pattern}; notes:\n${created.notes.join('\n')}`,
      );
    }
  });

  test('running it again reuses what exists and returns the same mapping', async () => {
    const again = await createResourcesFromTemplate(template, clients, { stackName: 'TesseraLocal' });
    for (const [id, resource] of Object.entries(created.resources)) {
      const second = again.resources[id];
      assert.equal(second?.name, resource.name, id);
      assert.equal(second?.arn, resource.arn, id);
      assert.equal(second?.url, resource.url, id);
    }
    assert.equal(again.resources.JobsTable1A2B3C4D?.existed, true);
    assert.equal(again.resources.GpuLaunchTemplateP4d7D8E9F0A?.existed, true);
  });

  test('a required property that cannot be resolved fails naming resource and property', async () => {
    await assert.rejects(
      createResourcesFromTemplate(
        {
          Resources: {
            BadTable: {
              Type: 'AWS::DynamoDB::Table',
              Properties: {
                BillingMode: 'PAY_PER_REQUEST',
                KeySchema: [{ AttributeName: { 'Fn::ImportValue': 'elsewhere' }, KeyType: 'HASH' }],
                AttributeDefinitions: [],
              },
            },
          },
        },
        clients,
      ),
      /BadTable \(AWS::DynamoDB::Table\).*KeySchema.*Fn::ImportValue is not supported locally/,
    );
  });
});
