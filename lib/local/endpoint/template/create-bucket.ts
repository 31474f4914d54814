import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { PropertyReader } from './properties.ts';

/** What a created template resource reports (the shape create-resources.ts uses). */
export interface CreatedBucket {
  logicalId: string;
  type: string;
  name: string;
  arn: string;
  existed: boolean;
}

/**
 * The physical name of a bucket without a BucketName: `<stack>-<logicalId>` in S3's alphabet (lower case letters,
 * digits, hyphens; at most 63), the same stand-in the local Lambda runner resolves a bucket's Ref to.
 */
export function generatedBucketName(stackName: string, logicalId: string): string {
  return `${stackName}-${logicalId}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63);
}

/** Settings S3 applies server-side that the local S3 (s3rver) does not enforce. */
const NOT_ENFORCED: Readonly<Record<string, string>> = {
  BucketEncryption: 'the local S3 does not encrypt at rest',
  PublicAccessBlockConfiguration: 'the local S3 is reachable on loopback only',
  LifecycleConfiguration: 'the local S3 runs no lifecycle rules',
  LoggingConfiguration: 'no server access logs locally',
  OwnershipControls: 'one local account owns everything',
  VersioningConfiguration: 'the local S3 keeps no versions',
  Tags: 'tags are not applied locally',
};

export async function createBucket(
  reader: PropertyReader,
  client: S3Client,
  stackName: string,
): Promise<CreatedBucket> {
  const name = reader.optionalString('BucketName') ?? generatedBucketName(stackName, reader.logicalId);
  for (const [property, why] of Object.entries(NOT_ENFORCED)) reader.ignore(property, why);
  let existed = false;
  try {
    await client.send(new HeadBucketCommand({ Bucket: name }));
    existed = true;
    reader.note(`${reader.logicalId}: bucket ${name} already exists; kept as is`);
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status !== 404) throw error;
    await client.send(new CreateBucketCommand({ Bucket: name }));
  }
  return { logicalId: reader.logicalId, type: reader.type, name, arn: `arn:aws:s3:::${name}`, existed };
}
