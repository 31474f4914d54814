/** The Jobs table: create (idempotent by id), read, list by tenant or status, and conditional updates. */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { JobStatus } from '../../core/model/job.ts';
import { Expressions, type ItemChanges } from '../dynamo/expressions.ts';
import type { LabelledWrite } from '../dynamo/fenced-writes.ts';
import { collect, type Page, queryAll, queryIndexForValues, queryPage } from '../dynamo/pagination.ts';
import { epochSecondsNow } from '../items/epoch-seconds.ts';
import { type JobItem, jobItemSchema } from '../items/job-item.ts';
import { JOBS_TABLE } from '../tables.ts';
import { isConditionalCheckFailed, unlessConditionFailed } from './errors.ts';
import { parseItem, parseItems } from './parse-item.ts';

export type CreateJobResult = { created: true; item: JobItem } | { created: false; existing: JobItem };

/** What a conditional job write expects to find: the status and generation it was decided from. */
export interface JobExpectation {
  readonly status: JobStatus;
  readonly jobGeneration: number;
}

type Client = Pick<DynamoDBDocumentClient, 'send'>;

/** Wall-clock epoch seconds (with decimals) of a write (the change index's sort key): compared only with other wall-clock stamps. */
export type WallClock = () => number;

/** The change index shard of a job: a stable hash of its id. */
export const changeShardOf = (jobId: string): string => {
  let hash = 0;
  for (let i = 0; i < jobId.length; i++) hash = (hash * 31 + jobId.charCodeAt(i)) >>> 0;
  return `c${hash % JOBS_TABLE.changeShards}`;
};

/** What every write of a job sets besides its own changes: where it sits in the change index, and a new revision. */
const stamp = (jobId: string, changes: ItemChanges, now: number): ItemChanges => ({
  ...changes,
  set: { ...changes.set, changedAt: now, changeShard: changeShardOf(jobId) },
  add: { ...changes.add, rev: 1 },
});

/** A new job item as stored: revision 1, in the change index. */
export const withChangeStamp = (item: JobItem, now: number): JobItem => ({
  ...item,
  rev: 1,
  changedAt: now,
  changeShard: changeShardOf(item.jobId),
});

/** What the change index holds of a job's latest write (lib/aws/tables.ts). */
export interface ChangeEntry {
  readonly jobId: string;
  readonly rev?: number;
  readonly status: JobStatus;
  readonly changedAt: number;
  readonly changeShard: string;
}

/** Keys per BatchGetItem call (DynamoDB's limit), and calls in flight at once. */
const BATCH_GET_KEYS = 100;
const BATCH_GET_CONCURRENCY = 4;

/** Conditions of `updateIf`: every given part must hold. */
export interface JobCondition {
  readonly status?: readonly JobStatus[];
  /** Attribute → value it must have (undefined: must be absent). */
  readonly equals?: Readonly<Record<string, unknown>>;
  /** Attribute → number it must be below (or absent). */
  readonly below?: Readonly<Record<string, number>>;
}

export class JobsRepository {
  constructor(
    private readonly client: Client,
    readonly tableName: string,
    private readonly wallClock: WallClock = epochSecondsNow,
  ) {}

  /** Writes a new job unless one with its id exists; then returns that one (a retried submit). */
  async create(given: JobItem): Promise<CreateJobResult> {
    const item = withChangeStamp(given, this.wallClock());
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': JOBS_TABLE.partitionKey },
        }),
      );
      return { created: true, item };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      // A consistent read rather than ReturnValuesOnConditionCheckFailure: the document client does not
      // unmarshall the item carried by the error.
      const existing = await this.get(item.jobId);
      if (!existing) throw error;
      return { created: false, existing };
    }
  }

  async get(jobId: string): Promise<JobItem | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { jobId }, ConsistentRead: true }),
    );
    return output.Item ? this.parse(output.Item) : undefined;
  }

  /** Strongly consistent reads of many jobs (missing ones are left out). */
  async getMany(jobIds: readonly string[]): Promise<JobItem[]> {
    return (await this.getRawMany(jobIds)).map((raw) => this.parse(raw));
  }

  /**
   * Strongly consistent reads of many jobs, unparsed, with only `attributes` when given (missing jobs are left
   * out): BatchGetItem, 100 keys per call, a few calls at a time, keys DynamoDB leaves unprocessed retried with
   * backoff.
   */
  async getRawMany(
    jobIds: readonly string[],
    attributes?: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    const batches: string[][] = [];
    for (let i = 0; i < jobIds.length; i += BATCH_GET_KEYS) batches.push(jobIds.slice(i, i + BATCH_GET_KEYS));
    const found: Record<string, unknown>[] = [];
    for (let i = 0; i < batches.length; i += BATCH_GET_CONCURRENCY)
      for (const items of await Promise.all(
        batches.slice(i, i + BATCH_GET_CONCURRENCY).map((ids) => this.batchGet(ids, attributes)),
      ))
        found.push(...items);
    return found;
  }

  private async batchGet(
    jobIds: readonly string[],
    attributes?: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    const x = new Expressions();
    const projection = attributes
      ? {
          ProjectionExpression: [...new Set([JOBS_TABLE.partitionKey, ...attributes])]
            .map((a) => x.name(a))
            .join(', '),
        }
      : {};
    const names = attributes ? x.attributes() : {};
    const found: Record<string, unknown>[] = [];
    let keys: Record<string, unknown>[] | undefined = jobIds.map((jobId) => ({ jobId }));
    for (let attempt = 0; keys && keys.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`BatchGetItem on ${this.tableName} kept returning unprocessed keys`);
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt * (0.5 + Math.random())));
      const output: BatchGetCommandOutput = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true, ...projection, ...names } },
        }),
      );
      found.push(...((output.Responses?.[this.tableName] ?? []) as Record<string, unknown>[]));
      keys = output.UnprocessedKeys?.[this.tableName]?.Keys;
    }
    return found;
  }

  /** One page of a tenant's jobs, newest first, optionally of one status. */
  listByTenant(
    tenant: string,
    options: { limit: number; nextToken?: string; status?: JobStatus },
  ): Promise<Page<JobItem>> {
    const x = new Expressions();
    const index = JOBS_TABLE.indexes.byTenant;
    return queryPage(
      this.client,
      {
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: x.eq(index.partitionKey, tenant),
        ...(options.status ? { FilterExpression: x.eq('status', options.status) } : {}),
        ScanIndexForward: false,
        ...x.attributes(),
      },
      options.limit,
      options.nextToken,
    ).then((page) => ({ ...page, items: page.items.map((raw) => this.parse(raw)) }));
  }

  /**
   * Every job written at or after `sinceMs` (the caller's in-process wall clock, epoch ms; the index holds epoch
   * seconds), from the change index (eventually consistent: a caller reads again from a little before its previous
   * read). Only what the index holds: `jobId`, `rev`, `status` and the index keys; the caller reads the bodies it
   * needs with `getRawMany`. Items last written before the upgrade to seconds hold milliseconds and so come back in
   * every read until their next write (see job-item.ts `changedAt`).
   */
  async listChangedSince(sinceMs: number): Promise<ChangeEntry[]> {
    const since = sinceMs / 1000;
    const index = JOBS_TABLE.indexes.byChange;
    const shards = Array.from({ length: JOBS_TABLE.changeShards }, (_, i) => `c${i}`);
    const pages = await Promise.all(
      shards.map((shard) => {
        const x = new Expressions();
        return collect(
          queryAll(this.client, {
            TableName: this.tableName,
            IndexName: index.name,
            KeyConditionExpression: `${x.eq(index.partitionKey, shard)} AND ${x.name(index.sortKey)} >= ${x.value(since)}`,
            ...x.attributes(),
          }),
        );
      }),
    );
    return pages.flat() as unknown as ChangeEntry[];
  }

  /** Every job in the given statuses (oldest first per status); malformed items are returned apart. */
  async listByStatuses(statuses: readonly JobStatus[]): Promise<{ items: JobItem[]; corrupt: Error[] }> {
    const raws = await this.listRawByStatuses(statuses);
    return parseItems(jobItemSchema, raws, (raw) => `${this.tableName} job ${String(raw.jobId)}`);
  }

  /**
   * One page of the jobs in `status`, unparsed, with only `attributes`, from `start` (the previous page's `next`),
   * within `range` of submittedAt (inclusive) when given: for a reader that spreads a long read over several calls
   * or reads parts of it in parallel.
   */
  async pageRawByStatus(
    status: JobStatus,
    attributes: readonly string[],
    start?: Record<string, unknown>,
    range?: { readonly from: number; readonly to: number },
  ): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
    const index = JOBS_TABLE.indexes.byStatus;
    const x = new Expressions();
    const key = range
      ? `${x.eq(index.partitionKey, status)} AND ${x.name(index.sortKey)} BETWEEN ${x.value(range.from)} AND ${x.value(range.to)}`
      : x.eq(index.partitionKey, status);
    const projection = attributes.map((a) => x.name(a)).join(', ');
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: key,
        ProjectionExpression: projection,
        ...(start ? { ExclusiveStartKey: start } : {}),
        ...x.attributes(),
      }),
    );
    return {
      items: (output.Items ?? []) as Record<string, unknown>[],
      ...(output.LastEvaluatedKey ? { next: output.LastEvaluatedKey as Record<string, unknown> } : {}),
    };
  }

  /** The oldest and newest submittedAt of the jobs in `status` (undefined when there are none). */
  async submittedRange(status: JobStatus): Promise<{ first: number; last: number } | undefined> {
    const index = JOBS_TABLE.indexes.byStatus;
    const end = async (oldestFirst: boolean) => {
      const x = new Expressions();
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: index.name,
          KeyConditionExpression: x.eq(index.partitionKey, status),
          ProjectionExpression: x.name(index.sortKey),
          ScanIndexForward: oldestFirst,
          Limit: 1,
          ...x.attributes(),
        }),
      );
      const value = output.Items?.[0]?.[index.sortKey];
      return typeof value === 'number' ? value : undefined;
    };
    const [first, last] = await Promise.all([end(true), end(false)]);
    return first === undefined || last === undefined ? undefined : { first, last };
  }

  /**
   * Like listByStatuses, unparsed, and with only the given attributes when `attributes` is given: for a caller
   * that keeps only part of each item (the statuses are read in parallel).
   */
  async listRawByStatuses(
    statuses: readonly JobStatus[],
    attributes?: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    const index = JOBS_TABLE.indexes.byStatus;
    const lists = await Promise.all(
      statuses.map((status) =>
        queryIndexForValues(
          this.client,
          {
            tableName: this.tableName,
            indexName: index.name,
            partitionKey: index.partitionKey,
            ...(attributes ? { attributes } : {}),
          },
          [status],
        ),
      ),
    );
    return lists.flat();
  }

  /**
   * Applies `changes` if the job exists and matches `expected` (status one of, attributes equal to, numbers
   * below); returns the new item, or undefined when it did not match or does not exist.
   */
  async updateIf(
    jobId: string,
    changes: ItemChanges,
    expected: JobCondition = {},
  ): Promise<JobItem | undefined> {
    const x = new Expressions();
    const update = x.update(stamp(jobId, changes, this.wallClock()));
    const conditions = [`attribute_exists(${x.name(JOBS_TABLE.partitionKey)})`];
    if (expected.status)
      conditions.push(`${x.name('status')} IN (${expected.status.map((s) => x.value(s)).join(', ')})`);
    for (const [attribute, value] of Object.entries(expected.equals ?? {}))
      conditions.push(x.eqOrAbsent(attribute, value));
    for (const [attribute, value] of Object.entries(expected.below ?? {}))
      conditions.push(
        `(attribute_not_exists(${x.name(attribute)}) OR ${x.name(attribute)} < ${x.value(value)})`,
      );
    const output = await unlessConditionFailed(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { jobId },
          UpdateExpression: update,
          ConditionExpression: conditions.join(' AND '),
          ReturnValues: 'ALL_NEW',
          ...x.attributes(),
        }),
      ),
    );
    return output?.Attributes ? this.parse(output.Attributes) : undefined;
  }

  /** A transactional write of the round: applies only if status and generation are as read. */
  roundWrite(jobId: string, changes: ItemChanges, expected: JobExpectation): LabelledWrite {
    const x = new Expressions();
    const update = x.update(stamp(jobId, changes, this.wallClock()));
    const condition = `${x.eq('status', expected.status)} AND ${x.eq('jobGeneration', expected.jobGeneration)}`;
    return {
      label: `job ${jobId}`,
      item: {
        Update: {
          TableName: this.tableName,
          Key: { jobId },
          UpdateExpression: update,
          ConditionExpression: condition,
          ...x.attributes(),
        },
      },
    };
  }

  private parse(raw: Record<string, unknown>): JobItem {
    return parseItem(jobItemSchema, raw, `${this.tableName} job ${String(raw.jobId)}`);
  }
}
