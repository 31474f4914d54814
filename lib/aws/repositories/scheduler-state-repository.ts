/**
 * The SchedulerState table: the round lease (a conditional write with an expiry and a fencing token) and the
 * state carried from one round to the next.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { initialSchedulerState, type SchedulerState } from '../../core/model/state.ts';
import { Expressions } from '../dynamo/expressions.ts';
import type { LabelledWrite, TransactItem } from '../dynamo/fenced-writes.ts';
import {
  LEASE_KEY,
  type LeaseItem,
  leaseItemSchema,
  STATE_KEY,
  type StateItem,
  stateItemSchema,
} from '../items/state-items.ts';
import { isConditionalCheckFailed, unlessConditionFailed } from './errors.ts';
import { parseItem } from './parse-item.ts';

type Client = Pick<DynamoDBDocumentClient, 'send'>;

export interface Lease {
  readonly holder: string;
  readonly token: number;
  /** Epoch seconds. */
  readonly heldUntil: number;
}

export interface LoadedState {
  readonly state: SchedulerState;
  /** The round number stored (0 before the first round): the next state write expects it. */
  readonly storedRound: number;
}

export class SchedulerStateRepository {
  constructor(
    private readonly client: Client,
    readonly tableName: string,
  ) {}

  /**
   * Takes the lease if it is free or expired (`now` in epoch seconds, the duration in seconds); undefined when another
   * holder has it. A lease item without `heldUntil` was written before times were seconds: it counts as expired (a
   * round still holding it fails its fenced writes, as the token moves on), and its `expiresAt` goes.
   */
  async acquireLease(holder: string, now: number, durationSeconds: number): Promise<Lease | undefined> {
    const x = new Expressions();
    const update = x.update({
      set: { holder, heldUntil: now + durationSeconds, acquiredAt: now },
      add: { token: 1 },
      remove: ['expiresAt'],
    });
    const condition = `attribute_not_exists(${x.name('key')}) OR attribute_not_exists(${x.name('heldUntil')}) OR ${x.name('heldUntil')} <= ${x.value(now)}`;
    const output = await unlessConditionFailed(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { key: LEASE_KEY },
          UpdateExpression: update,
          ConditionExpression: condition,
          ReturnValues: 'ALL_NEW',
          ...x.attributes(),
        }),
      ),
    );
    if (!output) return undefined;
    const item: LeaseItem = parseItem(leaseItemSchema, output.Attributes, `${this.tableName} lease`);
    return { holder: item.holder, token: item.token, heldUntil: item.heldUntil };
  }

  /** Gives the lease back early; a no-op when it already expired and was taken by someone else. */
  async releaseLease(lease: Lease): Promise<boolean> {
    const x = new Expressions();
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { key: LEASE_KEY },
          UpdateExpression: x.update({ set: { heldUntil: 0 } }),
          ConditionExpression: `${x.eq('holder', lease.holder)} AND ${x.eq('token', lease.token)}`,
          ...x.attributes(),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /** The ConditionCheck every write of the holder carries: still mine, not expired at `now` (epoch seconds). */
  fence(lease: Lease, now: number): TransactItem {
    const x = new Expressions();
    return {
      ConditionCheck: {
        TableName: this.tableName,
        Key: { key: LEASE_KEY },
        ConditionExpression: `${x.eq('holder', lease.holder)} AND ${x.eq('token', lease.token)} AND ${x.name('heldUntil')} > ${x.value(now)}`,
        ...x.attributes(),
      },
    };
  }

  async loadState(): Promise<LoadedState> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { key: STATE_KEY }, ConsistentRead: true }),
    );
    if (!output.Item) return { state: initialSchedulerState(), storedRound: 0 };
    const item: StateItem = parseItem(stateItemSchema, output.Item, `${this.tableName} scheduler state`);
    let state: SchedulerState;
    try {
      state = JSON.parse(item.state) as SchedulerState;
    } catch (error) {
      throw new Error(
        `${this.tableName} scheduler state: attribute state is not JSON (${(error as Error).message})`,
      );
    }
    return { state: { ...state, round: item.round }, storedRound: item.round };
  }

  /** The state write of a round: only if no other round stored a newer one since it was loaded. */
  stateWrite(
    state: SchedulerState,
    expectedRound: number,
    now: number,
    stats: Record<string, unknown>,
  ): LabelledWrite {
    const x = new Expressions();
    const update = x.update({
      set: {
        round: state.round,
        ...(state.lastRoundAt !== undefined ? { lastRoundAt: state.lastRoundAt } : {}),
        state: JSON.stringify(state),
        lastStats: stats,
        updatedAt: now,
      },
    });
    const condition =
      expectedRound === 0
        ? `attribute_not_exists(${x.name('key')}) OR ${x.eq('round', 0)}`
        : x.eq('round', expectedRound);
    return {
      label: 'scheduler state',
      item: {
        Update: {
          TableName: this.tableName,
          Key: { key: STATE_KEY },
          UpdateExpression: update,
          ConditionExpression: condition,
          ...x.attributes(),
        },
      },
    };
  }
}
