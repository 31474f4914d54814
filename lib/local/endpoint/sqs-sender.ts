/**
 * Sender identity on the local SQS. Real SQS stamps each message with the identity that sent it (`SenderId`):
 * for an EC2 instance role `<role id>:<instance id>`. fauxqs always answers `000000000000`, so the endpoint
 * carries the identity itself: on SendMessage(Batch) it records the caller's identity (from the SigV4 access key,
 * overwriting anything the caller put there) in a reserved message attribute, and on ReceiveMessage it moves that
 * attribute into `Attributes.SenderId`. Local host credentials are `LOCALHOST<hostId in hex>` access keys (DynamoDB Local
 * accepts only letters and digits in an access key id, and agents read their desired state with the same key), whose sender
 * is the role session `AROALOCALHOST:<hostId>`, as an instance role's session is named after its instance; any
 * other access key is its own sender id (like an IAM user's), which names no host.
 */
import type { IncomingHttpHeaders } from 'node:http';

export const SENDER_ATTRIBUTE = 'tessera-local-sender-id';
const HOST_KEY_PREFIX = 'LOCALHOST';
const HEX = /^(?:[0-9A-F]{2})+$/;
export const LOCAL_HOST_ROLE_ID = 'AROALOCALHOST';

/** Credentials a local host agent uses so that its telemetry names its host. */
export const localHostCredentials = (hostId: string) => ({
  accessKeyId: `${HOST_KEY_PREFIX}${Buffer.from(hostId, 'utf8').toString('hex').toUpperCase()}`,
  secretAccessKey: 'local',
});

export const senderIdOfAccessKey = (accessKeyId: string): string => {
  const hex = accessKeyId.startsWith(HOST_KEY_PREFIX) ? accessKeyId.slice(HOST_KEY_PREFIX.length) : '';
  return HEX.test(hex) ? `${LOCAL_HOST_ROLE_ID}:${Buffer.from(hex, 'hex').toString('utf8')}` : accessKeyId;
};

const CREDENTIAL = /Credential=([^/,\s]+)\//;

export const accessKeyOf = (headers: IncomingHttpHeaders): string | undefined => {
  const authorization = headers.authorization;
  return authorization ? CREDENTIAL.exec(authorization)?.[1] : undefined;
};

type Attributes = Record<string, { DataType: string; StringValue?: string }>;
interface SendEntry {
  MessageAttributes?: Attributes;
}

const stamp = (entry: SendEntry, senderId: string): void => {
  entry.MessageAttributes = {
    ...entry.MessageAttributes,
    [SENDER_ATTRIBUTE]: { DataType: 'String', StringValue: senderId },
  };
};

/** The request body with every message stamped with `senderId`; undefined for other actions. */
export const stampSendRequest = (target: string, body: string, senderId: string): string | undefined => {
  if (target !== 'AmazonSQS.SendMessage' && target !== 'AmazonSQS.SendMessageBatch') return undefined;
  const request = JSON.parse(body) as SendEntry & { Entries?: SendEntry[] };
  if (target === 'AmazonSQS.SendMessage') stamp(request, senderId);
  else for (const entry of request.Entries ?? []) stamp(entry, senderId);
  return JSON.stringify(request);
};

interface ReceivedMessage {
  Attributes?: Record<string, string>;
  MessageAttributes?: Attributes;
  MD5OfMessageAttributes?: string;
}

/** The ReceiveMessage response with each stamped sender moved into `Attributes.SenderId`. */
export const unstampReceiveResponse = (body: string): string => {
  const response = JSON.parse(body) as { Messages?: ReceivedMessage[] };
  for (const message of response.Messages ?? []) {
    const stamped = message.MessageAttributes?.[SENDER_ATTRIBUTE]?.StringValue;
    if (stamped === undefined) continue;
    delete message.MessageAttributes![SENDER_ATTRIBUTE];
    if (Object.keys(message.MessageAttributes!).length === 0) {
      delete message.MessageAttributes;
      delete message.MD5OfMessageAttributes;
    }
    if (message.Attributes?.SenderId !== undefined) message.Attributes.SenderId = stamped;
  }
  return JSON.stringify(response);
};
