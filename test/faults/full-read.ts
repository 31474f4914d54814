// How long a cold round handler without a snapshot takes to read N queued jobs, and whether reading the status index
// in parallel lanes (ranges of submittedAt) cuts it: `node --import tsx test/faults/full-read.ts 25000`. Jobs are
// written straight into the Jobs table of a fresh control plane (DynamoDB Local); each variant reads every queued
// job with the attributes the queue view keeps, as QueueView's full read does. Prints, per variant, the wall seconds
// and the CPU seconds of this process and of DynamoDB Local.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Expressions } from '../../lib/aws/dynamo/expressions.ts';
import { QUEUED_JOB_ATTRIBUTES } from '../../lib/aws/items/queued-job.ts';
import { JOBS_TABLE } from '../../lib/aws/tables.ts';
import { startControlPlane } from '../integration/support/local-stack.ts';
import { writeBurst } from './support/burst.ts';
import { descendantCpuSeconds } from './support/process-cpu.ts';

const size = Number(process.argv[2] ?? 10_000);
const cp = await startControlPlane();
const index = JOBS_TABLE.indexes.byStatus;

/** Every queued job with submittedAt in [from, to), page by page. */
const readLane = async (from: number, to: number): Promise<number> => {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const x = new Expressions();
    const output = await cp.clients.dynamodb.send(
      new QueryCommand({
        TableName: cp.jobs.tableName,
        IndexName: index.name,
        KeyConditionExpression: `${x.eq(index.partitionKey, 'queued')} AND ${x.name(index.sortKey)} BETWEEN ${x.value(from)} AND ${x.value(to - 1)}`,
        ProjectionExpression: QUEUED_JOB_ATTRIBUTES.map((a) => x.name(a)).join(', '),
        ...(start ? { ExclusiveStartKey: start } : {}),
        ...x.attributes(),
      }),
    );
    count += output.Items?.length ?? 0;
    start = output.LastEvaluatedKey;
  } while (start);
  return count;
};

/** The oldest and newest submission: one item from each end of the index. */
const bounds = async (): Promise<[number, number]> => {
  const end = async (forward: boolean) => {
    const x = new Expressions();
    const output = await cp.clients.dynamodb.send(
      new QueryCommand({
        TableName: cp.jobs.tableName,
        IndexName: index.name,
        KeyConditionExpression: x.eq(index.partitionKey, 'queued'),
        ScanIndexForward: forward,
        Limit: 1,
        ...x.attributes(),
      }),
    );
    return Number(output.Items?.[0]?.submittedAt ?? 0);
  };
  return [await end(true), await end(false)];
};

const measure = async (lanes: number) => {
  const wall = performance.now();
  const node = process.cpuUsage();
  const child = descendantCpuSeconds();
  const [first, last] = await bounds();
  const step = Math.ceil((last + 1 - first) / lanes);
  const counts = await Promise.all(
    Array.from({ length: lanes }, (_, i) =>
      readLane(first + i * step, i === lanes - 1 ? last + 1 : first + (i + 1) * step),
    ),
  );
  const cpu = process.cpuUsage(node);
  return {
    lanes,
    jobs: counts.reduce((a, b) => a + b, 0),
    wallSeconds: +((performance.now() - wall) / 1000).toFixed(2),
    nodeCpu: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    dynamodbCpu: +(descendantCpuSeconds() - child).toFixed(2),
  };
};

try {
  await writeBurst(cp, size, 'fr', { gpus: (i) => 1 + (i % 4) });
  // Alternating, twice each, so a busy moment of the shared machine does not favour one variant.
  for (const lanes of [1, 4, 1, 4, 8])
    process.stdout.write(`${JSON.stringify({ queued: size, ...(await measure(lanes)) })}\n`);
} finally {
  await cp.stop();
}
