/**
 * The per-tenant job summary item (items/tenant-summary.ts) in the SchedulerState table: the round publishes it when
 * it changed (never over a newer one), the API reads one tenant's part of it.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Expressions } from '../dynamo/expressions.ts';
import {
  TENANT_SUMMARY_KEY,
  type TenantJobs,
  type TenantSummary,
  tenantJobsSchema,
} from '../items/tenant-summary.ts';
import { isConditionalCheckFailed } from './errors.ts';

type Client = Pick<DynamoDBDocumentClient, 'send'>;

export interface TenantView extends TenantJobs {
  /** Epoch seconds: the round the counts describe. */
  readonly asOf: number;
}

export class TenantSummaryRepository {
  /** What this instance last wrote: an unchanged summary is not written again (the round handler keeps it warm). */
  private lastWritten: string | undefined;

  constructor(
    private readonly client: Client,
    readonly tableName: string,
  ) {}

  /** Writes the summary as of `asOf` unless it is unchanged or a newer one is stored; whether it wrote. */
  async publish(tenants: TenantSummary, asOf: number): Promise<boolean> {
    const text = JSON.stringify(tenants);
    if (text === this.lastWritten) return false;
    const x = new Expressions();
    const condition = `attribute_not_exists(${x.name('key')}) OR ${x.name('asOf')} < ${x.value(asOf)}`;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { key: TENANT_SUMMARY_KEY, asOf, tenants },
          ConditionExpression: condition,
          ...x.attributes(),
        }),
      );
      this.lastWritten = text;
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false; // a later round already wrote a newer one
      throw error;
    }
  }

  /** One tenant's jobs as of the last summary; undefined before any round wrote one. */
  async read(tenant: string): Promise<TenantView | undefined> {
    const x = new Expressions();
    const output = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { key: TENANT_SUMMARY_KEY },
        ProjectionExpression: `${x.name('asOf')}, ${x.name('tenants')}.${x.name(tenant)}`,
        ExpressionAttributeNames: x.names,
      }),
    );
    const item = output.Item;
    if (!item || typeof item.asOf !== 'number') return undefined;
    const mine = (item.tenants as Record<string, unknown> | undefined)?.[tenant];
    const parsed = tenantJobsSchema.safeParse(mine ?? { jobs: {}, gpus: 0 });
    return { asOf: item.asOf, ...(parsed.success ? parsed.data : { jobs: {}, gpus: 0 }) };
  }
}
