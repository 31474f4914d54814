/**
 * The agent's one S3 client factory: checkpoint staging (and later logs and working directories) get their
 * client here, so credentials and endpoint handling live in one place. With an endpoint (the local endpoint,
 * LocalStack) requests are path-style, which is what those servers serve.
 *
 * With `dataCredentials` (a deployed host: its instance role has no rights on job data), each command for a job's
 * objects (`jobs/<jobId>/…`, or a listing under that prefix) or a working directory (`workdirs/…`) is sent by a
 * client signing with the credentials vended for that job (looked up per command, so renewed ones are used at
 * once); a job-data command no set covers fails at once; other commands keep the client's own credentials.
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { DataCredentialSet } from '../../../lib/protocol/data-credentials.ts';
import type { HostDataCredentials } from './data-credentials.ts';

export interface S3ClientOptions {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  dataCredentials?: HostDataCredentials;
}

export class NoDataCredentialsError extends Error {
  override readonly name = 'NoDataCredentialsError';
}

const JOB_DATA = /^(jobs|workdirs)\//;

export function createS3Client(options: S3ClientOptions = {}): S3Client {
  const config: S3ClientConfig = {
    maxAttempts: 5,
    // A stuck request must not hold a job's exit forever (checkpoint confirmations wait for uploads); parts are
    // at most 16 MiB, so a minute without progress means the request is lost, and the SDK retries it.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
  };
  const client = new S3Client({
    ...config,
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  if (options.dataCredentials) routeJobData(client, config, options.dataCredentials);
  return client;
}

/** The object key or listing prefix a command names. */
const keyOf = (input: unknown): string | undefined => {
  const { Key, Prefix } = (input ?? {}) as { Key?: unknown; Prefix?: unknown };
  return typeof Key === 'string' ? Key : typeof Prefix === 'string' ? Prefix : undefined;
};

/**
 * Sends job-data commands through a client per credential set (same settings, the set's credentials); the
 * client's configuration stays the caller's view (lib-storage's Upload reads it and sends through `send`).
 */
function routeJobData(client: S3Client, config: S3ClientConfig, store: HostDataCredentials): void {
  const scoped = new Map<string, S3Client>();
  const clientFor = (set: DataCredentialSet): S3Client => {
    let found = scoped.get(set.accessKeyId);
    if (!found) {
      for (const [key, old] of scoped)
        if (key !== set.accessKeyId && !store.has(key)) {
          old.destroy(); // renewed: the old credentials are no longer handed out
          scoped.delete(key);
        }
      found = new S3Client({
        ...config,
        credentials: {
          accessKeyId: set.accessKeyId,
          secretAccessKey: set.secretAccessKey,
          sessionToken: set.sessionToken,
          expiration: new Date(set.expiresAt * 1000),
        },
      });
      scoped.set(set.accessKeyId, found);
    }
    return found;
  };
  const ownSend = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const ownDestroy = client.destroy.bind(client);
  client.send = ((command: { input: unknown }, ...rest: unknown[]) => {
    const key = keyOf(command.input);
    const set = key === undefined ? undefined : store.forKey(key);
    if (set) return (clientFor(set).send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    if (key !== undefined && JOB_DATA.test(key))
      return Promise.reject(new NoDataCredentialsError(`no job-data credentials on this host for ${key}`));
    return ownSend(command, ...rest);
  }) as S3Client['send'];
  client.destroy = () => {
    for (const c of scoped.values()) c.destroy();
    scoped.clear();
    ownDestroy();
  };
}
