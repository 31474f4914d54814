/** The Profiles table: measured throughput per model signature and placement. */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Expressions } from '../dynamo/expressions.ts';
import { scanAll } from '../dynamo/pagination.ts';
import {
  type ProfileItem,
  type ProfileKey,
  profileItemSchema,
  profilePlacement,
  profileSignature,
} from '../items/profile-item.ts';
import { parseItems } from './parse-item.ts';

type Client = Pick<DynamoDBDocumentClient, 'send'>;

export interface ProfileSample {
  readonly key: ProfileKey;
  /** Iterations per second of the whole job on this placement. */
  readonly iterationsPerSecond: number;
  readonly samplesPerSecond?: number;
  /** How many telemetry reports this sample aggregates. */
  readonly count: number;
  /** Epoch seconds. */
  readonly at: number;
}

export class ProfilesRepository {
  constructor(
    private readonly client: Client,
    readonly tableName: string,
  ) {}

  /** Adds samples atomically (ADD), so concurrent telemetry batches never overwrite each other. */
  async addSample(sample: ProfileSample): Promise<void> {
    const { key } = sample;
    const x = new Expressions();
    const update = x.update({
      set: {
        model: key.model,
        batchSize: key.batchSize,
        gpuType: key.gpuType,
        gpus: key.gpus,
        level: key.level,
        hosts: key.hosts,
        ...(key.partner ? { partner: key.partner } : {}),
        lastIterationsPerSecond: sample.iterationsPerSecond,
        ...(sample.samplesPerSecond !== undefined ? { lastSamplesPerSecond: sample.samplesPerSecond } : {}),
        updatedAt: sample.at,
      },
      add: { samples: sample.count, sumIterationsPerSecond: sample.iterationsPerSecond * sample.count },
    });
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { signature: profileSignature(key.model, key.batchSize), placement: profilePlacement(key) },
        UpdateExpression: update,
        ...x.attributes(),
      }),
    );
  }

  async listAll(): Promise<{ items: ProfileItem[]; corrupt: Error[] }> {
    const raws: Record<string, unknown>[] = [];
    for await (const raw of scanAll(this.client, { TableName: this.tableName })) raws.push(raw);
    return parseItems(
      profileItemSchema,
      raws,
      (raw) => `${this.tableName} profile ${String(raw.signature)}/${String(raw.placement)}`,
    );
  }
}
