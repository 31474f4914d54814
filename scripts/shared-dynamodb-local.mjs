// One DynamoDB Local for the test files of a run that start a local endpoint (test/support/shared-dynamodb-local.ts
// says how they use it): a JVM costs each file seconds of CPU to start and warm up, ~20 files in the whole suite.
import { readFileSync } from 'node:fs';

/** Files that start a local endpoint borrowing the shared DynamoDB Local (by the helpers they call). */
const BORROWS = /\b(startControlPlane|startLocalS3|sharedDynamoDbLocal)\(/;
const ENV = 'TESSERA_TEST_DYNAMODB_LOCAL';

/**
 * Starts it and sets TESSERA_TEST_DYNAMODB_LOCAL when at least two of `files` would use it (for one, its own costs
 * the same). If it cannot start (no Java), the variable stays unset and each file starts its own, failing with its
 * own message as before.
 */
export const startSharedDynamoDbLocal = async (files) => {
  if (process.env[ENV] || files.filter((f) => BORROWS.test(readFileSync(f, 'utf8'))).length < 2)
    return undefined;
  const { startDynamoDbLocal } = await import('../lib/local/endpoint/dynamodb-local.ts');
  try {
    const shared = await startDynamoDbLocal();
    process.env[ENV] = `${shared.port}:${shared.pid}`;
    return shared;
  } catch (error) {
    process.stderr.write(
      `shared DynamoDB Local did not start, each test file starts its own: ${error.message}\n`,
    );
    return undefined;
  }
};
