/**
 * Desired state from the host's item in the DynamoDB Hosts table. A strongly consistent read, so a
 * generation the control plane just wrote is never followed by an older one on the next poll.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DesiredStateSource } from './desired-state-source.ts';

export interface DynamoDbDesiredStateOptions {
  tableName: string;
  hostId: string;
  /** Partition key attribute of the Hosts table. */
  keyAttribute?: string;
  /** Attribute of the host item holding the desired state. */
  desiredAttribute?: string;
}

export class DynamoDbDesiredStateSource implements DesiredStateSource {
  constructor(
    private readonly client: Pick<DynamoDBDocumentClient, 'send'>,
    private readonly options: DynamoDbDesiredStateOptions,
  ) {}

  async read(): Promise<unknown> {
    const attribute = this.options.desiredAttribute ?? 'desired';
    const output = await this.client.send(
      new GetCommand({
        TableName: this.options.tableName,
        Key: { [this.options.keyAttribute ?? 'hostId']: this.options.hostId },
        ConsistentRead: true,
        // Only the desired state: the item also holds actual state and heartbeats the agent doesn't need.
        ProjectionExpression: '#desired',
        ExpressionAttributeNames: { '#desired': attribute },
      }),
    );
    return output.Item?.[attribute] ?? null;
  }
}
