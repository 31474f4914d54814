import assert from 'node:assert/strict';
import { test } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { TesseraStorage } from '../../../lib/infra/storage.ts';
import { REPOSITORY_ROOT } from '../../../lib/infra/tessera-stack.ts';

test('worker logs expire after the configured days, by tag under jobs/ so checkpoints are spared', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Storage');
  stack.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true); // as TesseraStack does
  new TesseraStorage(stack, 'Storage', {
    repositoryRoot: REPOSITORY_ROOT,
    checkpointRetentionDays: 30,
    logRetentionDays: 7,
  });
  const buckets = Template.fromStack(stack).findResources('AWS::S3::Bucket');
  const rules = Object.values(buckets).flatMap(
    (b) =>
      (b.Properties.LifecycleConfiguration?.Rules ?? []) as {
        Id?: string;
        Prefix?: string;
        TagFilters?: { Key: string; Value: string }[];
        ExpirationInDays?: number;
      }[],
  );
  const logs = rules.find((r) => r.Id === 'expire-job-logs');
  assert.deepEqual(logs, {
    Id: 'expire-job-logs',
    Prefix: 'jobs/',
    TagFilters: [{ Key: 'tessera-data', Value: 'logs' }],
    ExpirationInDays: 7,
    Status: 'Enabled',
  });
  assert.equal(rules.find((r) => r.Id === 'expire-old-job-data')?.ExpirationInDays, 30);
});
