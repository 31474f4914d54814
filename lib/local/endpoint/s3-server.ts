import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * S3 for the local endpoint: the `s3rver` npm server (a real S3-compatible server: buckets,
 * objects, ListObjectsV2, multipart uploads, stored on disk) on a private loopback port, which
 * the endpoint's router proxies to. Path-style requests only (`/<bucket>/<key>`); any signature
 * is accepted, as on the rest of the endpoint.
 */
export interface S3ServerOptions {
  /** Where buckets and objects are stored; a temporary directory removed on stop when absent. */
  dataDir?: string;
}

export interface S3Server {
  readonly port: number;
  /** Let s3rver accept requests signed with this access key id (it knows only keys it was told of). */
  allowAccessKey(accessKeyId: string): void;
  stop(): Promise<void>;
}

/** The part of s3rver's (untyped) API used here. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
interface S3rverAccount {
  accessKeys: Map<string, string>;
  createKeyPair(accessKeyId: string, secretAccessKey: string): void;
}

const ACCESS_KEY = /Credential=([^/,\s]+)\//;

/** The access key id a SigV4 request is signed with (Authorization header or presigned URL), if any. */
export function accessKeyIdOf(
  authorization: string | undefined,
  url: string | undefined,
): string | undefined {
  const fromHeader = authorization ? ACCESS_KEY.exec(authorization)?.[1] : undefined;
  if (fromHeader) return fromHeader;
  const queryIndex = url?.indexOf('?') ?? -1;
  if (!url || queryIndex < 0) return undefined;
  return new URLSearchParams(url.slice(queryIndex + 1)).get('X-Amz-Credential')?.split('/')[0] || undefined;
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3Server> {
  const temporary = options.dataDir === undefined;
  const directory = options.dataDir ?? mkdtempSync(join(tmpdir(), 'tessera-s3-'));
  mkdirSync(directory, { recursive: true });
  const require = createRequire(import.meta.url);
  const S3rver = require('s3rver') as S3rverClass;
  // s3rver checks access keys against its one dummy account; signatures are not verified (allowMismatchedSignatures).
  const account = (require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: S3rverAccount }).DUMMY_ACCOUNT;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    // The endpoint accepts any credentials for every service; S3 must not be the odd one out.
    allowMismatchedSignatures: true,
    // Hosts like 127.0.0.1:4566 or `localhost` are never bucket names here: path-style only.
    vhostBuckets: false,
  });
  const address = await server.run();
  let stopping: Promise<void> | undefined;
  return {
    port: address.port,
    allowAccessKey: (accessKeyId) => {
      if (!account.accessKeys.has(accessKeyId)) account.createKeyPair(accessKeyId, 'any');
    },
    stop: () => {
      stopping ??= server.close().finally(() => {
        if (temporary) rmSync(directory, { recursive: true, force: true });
      });
      return stopping;
    },
  };
}
