/** The Hosts table: host items by state, registration upserts, and conditional desired-state writes. */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DATA_CREDENTIALS_ATTRIBUTE } from '../../protocol/data-credentials.ts';
import type { DesiredStateDocument } from '../../protocol/desired-state.ts';
import type { HostDataGrant } from '../credentials/vend-host-credentials.ts';
import { Expressions, type ItemChanges } from '../dynamo/expressions.ts';
import type { LabelledWrite } from '../dynamo/fenced-writes.ts';
import { queryIndexForValues } from '../dynamo/pagination.ts';
import { type HostItem, type HostItemState, hostItemSchema } from '../items/host-item.ts';
import { HOSTS_TABLE } from '../tables.ts';
import { isConditionalCheckFailed, unlessConditionFailed } from './errors.ts';
import { parseItem, parseItems } from './parse-item.ts';

type Client = Pick<DynamoDBDocumentClient, 'send'>;

export class HostsRepository {
  /**
   * @param hostArnPrefix `arn:<partition>:ec2:<region>:<account>:instance/`: when set, every desired state is also
   *   written, in the same transaction, to the item keyed by the host's instance ARN — the one item its instance
   *   role may read (least privilege; see lib/infra/fleet.ts).
   */
  constructor(
    private readonly client: Client,
    readonly tableName: string,
    private readonly hostArnPrefix?: string,
  ) {}

  /** Key of the host's desired-state copy, or undefined when copies are not written (no prefix configured). */
  desiredCopyKey(hostId: string): string | undefined {
    return this.hostArnPrefix ? `${this.hostArnPrefix}${hostId}` : undefined;
  }

  async get(hostId: string): Promise<HostItem | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { hostId }, ConsistentRead: true }),
    );
    return output.Item ? this.parse(output.Item) : undefined;
  }

  /** Every host in the given states; malformed items are returned apart. */
  async listByStates(states: readonly HostItemState[]): Promise<{ items: HostItem[]; corrupt: Error[] }> {
    const index = HOSTS_TABLE.indexes.byState;
    const raws = await queryIndexForValues(
      this.client,
      { tableName: this.tableName, indexName: index.name, partitionKey: index.partitionKey },
      states,
    );
    return parseItems(hostItemSchema, raws, (raw) => `${this.tableName} host ${String(raw.hostId)}`);
  }

  /** Writes a host item unless one exists (a host launched by a round, or adopted). Returns whether it wrote. */
  async createIfAbsent(item: HostItem): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': HOSTS_TABLE.partitionKey },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /**
   * Applies `changes`; with `onlyInStates`, only while the host is in one of them (creating it when absent
   * and `createIfAbsent`). Returns the new item, or undefined when the condition failed.
   */
  async update(
    hostId: string,
    changes: ItemChanges,
    options: { onlyInStates?: readonly HostItemState[]; createIfAbsent?: boolean } = {},
  ): Promise<HostItem | undefined> {
    const x = new Expressions();
    const update = x.update(changes);
    const conditions: string[] = [];
    const exists = `attribute_exists(${x.name(HOSTS_TABLE.partitionKey)})`;
    if (options.onlyInStates) {
      const inState = `${x.name('state')} IN (${options.onlyInStates.map((s) => x.value(s)).join(', ')})`;
      conditions.push(
        options.createIfAbsent
          ? `(attribute_not_exists(${x.name('hostId')}) OR ${inState})`
          : `${exists} AND ${inState}`,
      );
    } else if (!options.createIfAbsent) {
      conditions.push(exists);
    }
    const output = await unlessConditionFailed(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { hostId },
          UpdateExpression: update,
          ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
          ReturnValues: 'ALL_NEW',
          ...x.attributes(),
        }),
      ),
    );
    return output?.Attributes ? this.parse(output.Attributes) : undefined;
  }

  /**
   * A transactional write of the round: the host's new desired state with the next generation, applied only if
   * the generation is still the one the round read (no other writer got in between). With `grant`, the host's
   * job-data credentials are replaced in the same transaction; a desired state without jobs revokes them.
   */
  desiredWrite(
    hostId: string,
    desired: DesiredStateDocument,
    expectedGeneration: number,
    extra: ItemChanges = {},
    grant?: HostDataGrant,
    options: { readonly keepCredentials?: boolean } = {},
  ): LabelledWrite {
    // Kept while the host still stops a job it no longer runs: it uploads that job's last checkpoint.
    const revoke = desired.jobs.length === 0 && !grant && !options.keepCredentials;
    const x = new Expressions();
    const update = x.update({
      set: {
        ...extra.set,
        desired,
        desiredGeneration: desired.generation,
        ...(grant ? { dataAccess: grant.record } : {}),
      },
      ...(extra.remove || revoke
        ? { remove: [...(extra.remove ?? []), ...(revoke ? ['dataAccess'] : [])] }
        : {}),
    });
    return {
      ...this.generationGuarded(hostId, x, update, expectedGeneration),
      ...this.copyWrite(hostId, { desired }, revoke ? 'revoke' : grant),
    };
  }

  /**
   * A transactional write of the round that gives the host new job-data credentials and leaves its desired state
   * alone (the credentials expire soon), with `changes` to the host item (idle tracking).
   */
  grantWrite(
    hostId: string,
    grant: HostDataGrant,
    expectedGeneration: number,
    changes: ItemChanges = {},
  ): LabelledWrite {
    const write = this.roundWrite(
      hostId,
      { ...changes, set: { ...changes.set, dataAccess: grant.record } },
      expectedGeneration,
    );
    return { ...write, ...this.copyWrite(hostId, {}, grant) };
  }

  /** A transactional write of the round that takes the host's job-data credentials away (it has no jobs left). */
  revokeWrite(hostId: string, expectedGeneration: number, changes: ItemChanges = {}): LabelledWrite {
    const write = this.roundWrite(
      hostId,
      { ...changes, remove: [...(changes.remove ?? []), 'dataAccess'] },
      expectedGeneration,
    );
    return { ...write, ...this.copyWrite(hostId, {}, 'revoke') };
  }

  /**
   * Removes the job-data credentials from the host's copy (a host declared lost or terminated outside a desired-state
   * write): nobody reads them from the table any more; they expire within minutes anyway. Absent copy: a no-op.
   */
  async revokeDataCredentials(hostId: string): Promise<void> {
    const key = this.desiredCopyKey(hostId);
    if (!key) return;
    const x = new Expressions();
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { hostId: key },
          UpdateExpression: x.update({ remove: [DATA_CREDENTIALS_ATTRIBUTE] }),
          ConditionExpression: `attribute_exists(${x.name('hostId')})`,
          ...x.attributes(),
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionalCheckFailed(error)) throw error;
      });
  }

  /**
   * The host's copy (keyed by its instance ARN, the one item its instance role may read): `set` attributes, and
   * its credentials replaced by `grant`'s or removed. An update, not a put, so credentials outlive a new desired
   * state and a desired state outlives new credentials.
   */
  private copyWrite(
    hostId: string,
    set: Record<string, unknown>,
    grant: HostDataGrant | 'revoke' | undefined,
  ): Pick<LabelledWrite, 'with'> {
    const key = this.desiredCopyKey(hostId);
    if (!key) return {};
    const x = new Expressions();
    const credentials =
      grant && grant !== 'revoke' ? { [DATA_CREDENTIALS_ATTRIBUTE]: grant.credentials } : {};
    const update = x.update({
      set: { ...set, ...credentials },
      ...(grant === 'revoke' ? { remove: [DATA_CREDENTIALS_ATTRIBUTE] } : {}),
    });
    // No `state`: the copy is not a host and never appears in the by-state index.
    return {
      with: [
        {
          Update: {
            TableName: this.tableName,
            Key: { hostId: key },
            UpdateExpression: update,
            ...x.attributes(),
          },
        },
      ],
    };
  }

  /** A transactional write of the round that leaves the desired state alone (idle tracking, state changes). */
  roundWrite(hostId: string, changes: ItemChanges, expectedGeneration: number): LabelledWrite {
    const x = new Expressions();
    return this.generationGuarded(hostId, x, x.update(changes), expectedGeneration);
  }

  /** The round's update of one host, applied only while its desired generation is the one the round read. */
  private generationGuarded(
    hostId: string,
    x: Expressions,
    update: string,
    expectedGeneration: number,
  ): LabelledWrite {
    return {
      label: `host ${hostId}`,
      item: {
        Update: {
          TableName: this.tableName,
          Key: { hostId },
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(${x.name('hostId')}) AND ${x.eq('desiredGeneration', expectedGeneration)}`,
          ...x.attributes(),
        },
      },
    };
  }

  private parse(raw: Record<string, unknown>): HostItem {
    return parseItem(hostItemSchema, raw, `${this.tableName} host ${String(raw.hostId)}`);
  }
}
