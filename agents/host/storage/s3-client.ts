/**
 * The agent's one S3 client factory: checkpoint staging (and later logs and working directories) get their
 * client here, so credentials and endpoint handling live in one place. With an endpoint (the local endpoint,
 * LocalStack) requests are path-style, which is what those servers serve.
 *
 * With `dataCredentials` (a deployed host: its instance role has no rights on job data), each request for a
 * job's objects (`jobs/<jobId>/…`, or a listing under that prefix) or a working directory (`workdirs/…`) is signed
 * with the credentials vended for that job, looked up per request so renewed ones are used at once; other
 * requests keep the client's own credentials.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { HostDataCredentials } from './data-credentials.ts';

export interface S3ClientOptions {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  dataCredentials?: HostDataCredentials;
}

export function createS3Client(options: S3ClientOptions = {}): S3Client {
  const client = new S3Client({
    maxAttempts: 5,
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  if (options.dataCredentials) signJobDataWith(client, options.dataCredentials);
  return client;
}

/** `@smithy/types` SMITHY_CONTEXT_KEY: where the SDK keeps the identity the signing step signs with. */
const SMITHY_CONTEXT = '__smithy_context';

interface AuthContext {
  selectedHttpAuthScheme?: { identity: unknown };
}

/** The object key or listing prefix a command names. */
const keyOf = (input: unknown): string | undefined => {
  const { Key, Prefix } = (input ?? {}) as { Key?: unknown; Prefix?: unknown };
  return typeof Key === 'string' ? Key : typeof Prefix === 'string' ? Prefix : undefined;
};

/** Replaces the identity chosen for a request with the job's vended credentials, just before it is signed. */
function signJobDataWith(client: S3Client, store: HostDataCredentials): void {
  type Next = (args: { input: unknown }) => Promise<unknown>;
  const middleware = (next: Next, context: object) => async (args: { input: unknown }) => {
    const key = keyOf(args.input);
    const set = key === undefined ? undefined : store.forKey(key);
    const auth = (context as Record<string, AuthContext | undefined>)[SMITHY_CONTEXT];
    if (set && auth?.selectedHttpAuthScheme) {
      auth.selectedHttpAuthScheme = {
        ...auth.selectedHttpAuthScheme,
        identity: {
          accessKeyId: set.accessKeyId,
          secretAccessKey: set.secretAccessKey,
          sessionToken: set.sessionToken,
          expiration: new Date(set.expiresAt * 1000),
        },
      };
    }
    return next(args);
  };
  client.middlewareStack.addRelativeTo(
    middleware as unknown as Parameters<S3Client['middlewareStack']['addRelativeTo']>[0],
    {
      relation: 'before',
      toMiddleware: 'httpSigningMiddleware',
      name: 'tesseraJobDataCredentials',
      override: true,
    },
  );
}
