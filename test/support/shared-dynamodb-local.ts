/**
 * One DynamoDB Local (a JVM: seconds of CPU to start and warm up) for all the test files of a run that start a
 * local endpoint: scripts/run-test-files.mjs starts it and names it in TESSERA_TEST_DYNAMODB_LOCAL (`<port>:<pid>`).
 * Files keep apart by table names (each control plane's own random stack name) and delete their tables when done.
 * Without the variable (a file run on its own by `node --test`), each endpoint starts its own DynamoDB Local.
 */
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LocalEndpointOptions } from '../../lib/local/endpoint/index.ts';
import type { TemplateResources } from '../../lib/local/endpoint/template/create-resources.ts';

export const SHARED_DYNAMODB_LOCAL_ENV = 'TESSERA_TEST_DYNAMODB_LOCAL';

/** `startLocalEndpoint` options that use the run's shared DynamoDB Local, if there is one. */
export const sharedDynamoDbLocal = (): Pick<LocalEndpointOptions, 'dynamodb'> => {
  const named = process.env[SHARED_DYNAMODB_LOCAL_ENV]?.match(/^(\d+):(\d+)$/);
  return named ? { dynamodb: { running: { port: Number(named[1]), pid: Number(named[2]) } } } : {};
};

/** Delete the stack's tables, so a long run's shared in-memory database does not keep every file's data. */
export const deleteTables = async (endpointUrl: string, resources: TemplateResources): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint: endpointUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  try {
    const tables = Object.values(resources.resources).filter((r) => r.type === 'AWS::DynamoDB::Table');
    // Best effort: a test may have deleted a table itself.
    await Promise.allSettled(tables.map((t) => client.send(new DeleteTableCommand({ TableName: t.name }))));
  } finally {
    client.destroy();
  }
};
