/**
 * Paginated reads. Page cursors handed to API clients are the DynamoDB LastEvaluatedKey as base64url JSON;
 * a cursor that does not decode to a key object is rejected, naming the parameter.
 */
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';

import { Expressions } from './expressions.ts';

export type Key = Record<string, unknown>;

export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
}

export const encodeCursor = (key: Key | undefined): string | undefined =>
  key ? Buffer.from(JSON.stringify(key), 'utf8').toString('base64url') : undefined;

export const decodeCursor = (cursor: string, parameter = 'nextToken'): Key => {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError(`${parameter}: is not a cursor returned by a previous page`);
  }
  const valid =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string' || typeof v === 'number');
  if (!valid) throw new InvalidCursorError(`${parameter}: is not a cursor returned by a previous page`);
  return value as Key;
};

export interface Page<T> {
  readonly items: T[];
  readonly nextToken?: string;
}

type Client = Pick<DynamoDBDocumentClient, 'send'>;

/** One page of a query (at most `limit` items read; a filter may return fewer). */
export const queryPage = async (
  client: Client,
  input: QueryCommandInput,
  limit: number,
  cursor?: string,
): Promise<Page<Key>> => {
  const output = await client.send(
    new QueryCommand({
      ...input,
      Limit: limit,
      ...(cursor ? { ExclusiveStartKey: decodeCursor(cursor) } : {}),
    }),
  );
  const nextToken = encodeCursor(output.LastEvaluatedKey);
  return { items: (output.Items ?? []) as Key[], ...(nextToken ? { nextToken } : {}) };
};

/** Every item of a query, page by page. */
export async function* queryAll(client: Client, input: QueryCommandInput): AsyncGenerator<Key> {
  let start: Key | undefined;
  do {
    const output = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    for (const item of output.Items ?? []) yield item as Key;
    start = output.LastEvaluatedKey as Key | undefined;
  } while (start);
}

/** Every item whose index partition key equals one of `values`, value by value, each in the index's sort order. */
export const queryIndexForValues = async (
  client: Client,
  table: { tableName: string; indexName: string; partitionKey: string; attributes?: readonly string[] },
  values: readonly string[],
): Promise<Key[]> => {
  const items: Key[] = [];
  for (const value of values) {
    const x = new Expressions();
    const key = x.eq(table.partitionKey, value);
    const projection = table.attributes?.map((a) => x.name(a)).join(', ');
    for await (const item of queryAll(client, {
      TableName: table.tableName,
      IndexName: table.indexName,
      KeyConditionExpression: key,
      ...(projection ? { ProjectionExpression: projection } : {}),
      ...x.attributes(),
    }))
      items.push(item);
  }
  return items;
};

/** Every item of a scan, page by page. */
export async function* scanAll(client: Client, input: ScanCommandInput): AsyncGenerator<Key> {
  let start: Key | undefined;
  do {
    const output = await client.send(new ScanCommand({ ...input, ExclusiveStartKey: start }));
    for (const item of output.Items ?? []) yield item as Key;
    start = output.LastEvaluatedKey as Key | undefined;
  } while (start);
}

export const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};
