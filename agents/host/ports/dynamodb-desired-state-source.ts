/**
 * Desired state from the DynamoDB Hosts table. A strongly consistent read, so a generation the control plane
 * just wrote is never followed by an older one on the next poll. On EC2 the item read is the one keyed by the
 * instance ARN (a copy the control plane writes with the host item): the instance role may read only the item
 * whose key is its own `ec2:SourceInstanceARN`.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DATA_CREDENTIALS_ATTRIBUTE } from '../../../lib/protocol/data-credentials.ts';
import type { DesiredStateSource } from './desired-state-source.ts';

export interface DynamoDbDesiredStateOptions {
  tableName: string;
  /** Key value of the item: the host id, or on EC2 the instance ARN. */
  hostId: string;
  /** Partition key attribute of the Hosts table. */
  keyAttribute?: string;
  /** Attribute of the host item holding the desired state. */
  desiredAttribute?: string;
  /** Receives the item's job-data credentials (attribute `dataCredentials`) on every read, when given. */
  onDataCredentials?: (raw: unknown) => void;
}

export class DynamoDbDesiredStateSource implements DesiredStateSource {
  constructor(
    private readonly client: Pick<DynamoDBDocumentClient, 'send'>,
    private readonly options: DynamoDbDesiredStateOptions,
  ) {}

  async read(): Promise<unknown> {
    const attribute = this.options.desiredAttribute ?? 'desired';
    const onCredentials = this.options.onDataCredentials;
    const output = await this.client.send(
      new GetCommand({
        TableName: this.options.tableName,
        Key: { [this.options.keyAttribute ?? 'hostId']: this.options.hostId },
        ConsistentRead: true,
        // Only the desired state (and credentials): the item also holds actual state and heartbeats.
        ProjectionExpression: onCredentials ? '#desired, #credentials' : '#desired',
        ExpressionAttributeNames: {
          '#desired': attribute,
          ...(onCredentials ? { '#credentials': DATA_CREDENTIALS_ATTRIBUTE } : {}),
        },
      }),
    );
    onCredentials?.(output.Item?.[DATA_CREDENTIALS_ATTRIBUTE]);
    return output.Item?.[attribute] ?? null;
  }
}
