import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TemplateResources } from '../../../../lib/local/endpoint/template/create-resources.ts';
import { apiGatewayEvent, resolveTemplateFunctions, sqsRecord } from '../../../../lib/local/runner/index.ts';

const template = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    Queue: { Type: 'AWS::SQS::Queue', Properties: {} },
    Subnet: { Type: 'AWS::EC2::Subnet', Properties: {} },
    Bucket: { Type: 'AWS::S3::Bucket', Properties: {} },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Timeout: 50,
        MemorySize: 1769,
        Environment: {
          Variables: {
            TESSERA_FUNCTION: 'round',
            TESSERA_JOBS_TABLE: { Ref: 'Table' },
            TESSERA_FLEET: { 'Fn::Join': ['', ['{"subnetIds":["', { Ref: 'Subnet' }, '"]}']] },
            TESSERA_CHECKPOINT_ROOT: { 'Fn::Join': ['', ['s3://', { Ref: 'Bucket' }, '/checkpoints']] },
            ODD: { 'Fn::ImportValue': 'elsewhere' },
          },
        },
      },
    },
    Other: { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: { A: 'b' } } } },
    Mapping: {
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: {
        EventSourceArn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
        FunctionName: { Ref: 'Fn' },
        BatchSize: 7,
        MaximumBatchingWindowInSeconds: 3,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      },
    },
    Schedule: {
      Type: 'AWS::Events::Rule',
      Properties: {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [
          {
            Id: 't',
            Arn: { 'Fn::GetAtt': ['Fn', 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 1 },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['Queue', 'Arn'] } },
          },
        ],
      },
    },
  },
};

const created: TemplateResources = {
  stackName: 's',
  resources: {
    Table: { logicalId: 'Table', type: 'AWS::DynamoDB::Table', name: 's-Table', existed: false },
    Queue: {
      logicalId: 'Queue',
      type: 'AWS::SQS::Queue',
      name: 's-Queue',
      arn: 'arn:aws:sqs:us-east-1:0:s-Queue',
      url: 'http://q/s-Queue',
      existed: false,
    },
    Schedule: { logicalId: 'Schedule', type: 'AWS::Events::Rule', name: 's-Schedule', existed: false },
  },
  skipped: [
    {
      logicalId: 'Fn',
      type: 'AWS::Lambda::Function',
      reason: 'runner',
      name: 's-Fn',
      arn: 'arn:aws:lambda:us-east-1:0:function:s-Fn',
    },
    {
      logicalId: 'Other',
      type: 'AWS::Lambda::Function',
      reason: 'runner',
      name: 's-Other',
      arn: 'arn:aws:lambda:us-east-1:0:function:s-Other',
    },
  ],
  notes: [],
};

describe('resolveTemplateFunctions', () => {
  const resolved = resolveTemplateFunctions(template, created, { region: 'us-east-1', accountId: '0' });

  test('Tessera functions with their environment resolved to local resources and stand-ins', () => {
    assert.equal(resolved.functions.length, 1, 'functions without TESSERA_FUNCTION are not Tessera handlers');
    const fn = resolved.functions[0]!;
    assert.equal(fn.kind, 'round');
    assert.equal(fn.name, 's-Fn');
    assert.equal(fn.timeoutSeconds, 50);
    assert.equal(fn.env.TESSERA_JOBS_TABLE, 's-Table');
    assert.match(fn.env.TESSERA_FLEET ?? '', /^\{"subnetIds":\["subnet-[0-9a-f]{17}"\]\}$/);
    assert.equal(fn.env.TESSERA_CHECKPOINT_ROOT, 's3://s-bucket/checkpoints');
    assert.deepEqual(fn.unresolved, ['ODD']);
  });

  test('event source mappings and rule targets', () => {
    assert.deepEqual(resolved.eventSourceMappings, [
      {
        logicalId: 'Mapping',
        functionName: 's-Fn',
        queueArn: 'arn:aws:sqs:us-east-1:0:s-Queue',
        batchSize: 7,
        maximumBatchingWindowSeconds: 3,
        reportBatchItemFailures: true,
        enabled: true,
      },
    ]);
    assert.deepEqual(resolved.ruleTargets, [
      {
        ruleLogicalId: 'Schedule',
        ruleName: 's-Schedule',
        scheduleExpression: 'rate(1 minute)',
        functionArn: 'arn:aws:lambda:us-east-1:0:function:s-Fn',
        maximumRetryAttempts: 1,
        deadLetterArn: 'arn:aws:sqs:us-east-1:0:s-Queue',
      },
    ]);
  });
});

describe('lambda events', () => {
  test('API Gateway proxy events carry the IAM identity and the concrete path', () => {
    const event = apiGatewayEvent({
      method: 'GET',
      resource: '/jobs/{id}',
      pathParameters: { id: 'job-1' },
      principal: 'AIDAX',
      query: { a: 'b' },
    });
    assert.equal(event.path, '/jobs/job-1');
    assert.equal(event.requestContext.identity.user, 'AIDAX');
    assert.deepEqual(event.multiValueQueryStringParameters, { a: ['b'] });
  });

  test('SQS records carry attributes and message attributes in Lambda’s shape', () => {
    const record = sqsRecord(
      {
        MessageId: 'm',
        ReceiptHandle: 'h',
        Body: 'x',
        Attributes: { SenderId: 'S', ApproximateReceiveCount: '3' },
        MessageAttributes: { k: { DataType: 'String', StringValue: 'v' } },
      },
      'arn:q',
      'us-east-1',
    );
    assert.equal(record.attributes.SenderId, 'S');
    assert.equal(record.attributes.ApproximateReceiveCount, '3');
    assert.deepEqual(record.messageAttributes.k, {
      dataType: 'String',
      stringValue: 'v',
      stringListValues: [],
      binaryListValues: [],
    });
    assert.equal(record.eventSourceARN, 'arn:q');
  });
});
