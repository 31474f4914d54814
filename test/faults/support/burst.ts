/**
 * A burst of submissions written straight into the Jobs table, as `submitJob` writes each (same item, same change
 * stamp), many at a time: what thousands of API calls arriving between two rounds leave behind, without the minutes
 * that many calls through the local API would take.
 */
import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { withChangeStamp } from '../../../lib/aws/repositories/jobs-repository.ts';
import { jobIdFor, newJobItem } from '../../../lib/aws/submit-job.ts';
import { validateJobSpec } from '../../../lib/protocol/job-spec.ts';
import { jobDocument } from '../../integration/support/fixtures.ts';
import type { ControlPlane } from '../../integration/support/local-stack.ts';

export interface BurstOptions {
  /** Wall-clock epoch seconds stamped as the time of the write (default: now). */
  readonly changedAt?: number;
  readonly gpus?: (i: number) => number;
}

/** Writes `count` new queued jobs; returns their ids. */
export const writeBurst = async (
  cp: ControlPlane,
  count: number,
  tag: string,
  options: BurstOptions = {},
): Promise<string[]> => {
  const now = Date.now() / 1000;
  const items = Array.from({ length: count }, (_, i) => {
    const parsed = validateJobSpec(
      jobDocument({ gpus: options.gpus?.(i) ?? 1, iterations: 1e9, clientToken: `${tag}-${i}` }),
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const tenant = `tenant-${i % 7}`;
    return withChangeStamp(
      newJobItem({ tenant, document: parsed.document }, jobIdFor(tenant, `${tag}-${i}`), now + i / 1000),
      options.changedAt ?? Date.now() / 1000,
    );
  });
  const PARALLEL = 8;
  for (let i = 0; i < items.length; i += 25 * PARALLEL) {
    await Promise.all(
      Array.from({ length: PARALLEL }, (_, c) => items.slice(i + c * 25, i + (c + 1) * 25))
        .filter((chunk) => chunk.length > 0)
        .map(async (chunk) => {
          let requests: NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string] | undefined =
            chunk.map((Item) => ({ PutRequest: { Item } }));
          for (let attempt = 0; requests && requests.length > 0; attempt++) {
            if (attempt > 10) throw new Error('BatchWriteItem kept returning unprocessed items');
            if (attempt > 0)
              await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** Math.min(attempt, 5)));
            const output: BatchWriteCommandOutput = await cp.clients.dynamodb.send(
              new BatchWriteCommand({ RequestItems: { [cp.jobs.tableName]: requests } }),
            );
            requests = output.UnprocessedItems?.[cp.jobs.tableName];
          }
        }),
    );
  }
  return items.map((item) => item.jobId);
};
