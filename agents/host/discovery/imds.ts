/**
 * EC2 instance metadata (IMDSv2): a session token from `PUT /latest/api/token`, then
 * `GET /latest/meta-data/...` with the token. The base URL is configurable so tests can run a fake
 * IMDS on 127.0.0.1.
 */
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.ts';

export interface InstanceIdentity {
  instanceId: string;
  instanceType: string;
  availabilityZone: string;
}

export interface SpotNotice {
  /** terminate, stop or hibernate ('unknown' if the notice could not be parsed). */
  action: string;
  /** When EC2 will act (epoch ms), null if not given. */
  time: number | null;
}

export interface ImdsOptions {
  /** e.g. http://169.254.169.254 */
  baseUrl: string;
  tokenTtlSeconds?: number;
  timeoutMs?: number;
  clock?: Clock;
}

export class ImdsError extends Error {}

const instanceActionSchema = z.object({ action: z.string(), time: z.string().optional() });
/** Renew the token this long before it expires, so a request never races its expiry. */
const TOKEN_RENEW_MARGIN_MS = 60_000;

export class ImdsClient {
  private token: { value: string; expiresAt: number } | null = null;
  /** A token request in flight, shared by concurrent reads so they ask for one token, not several. */
  private tokenRequest: Promise<string> | null = null;
  private readonly baseUrl: string;
  private readonly ttlSeconds: number;
  private readonly timeoutMs: number;
  private readonly clock: Clock;

  constructor(options: ImdsOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.ttlSeconds = options.tokenTtlSeconds ?? 21_600;
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.clock = options.clock ?? systemClock;
  }

  async identity(): Promise<InstanceIdentity> {
    const [instanceId, instanceType, availabilityZone] = await Promise.all([
      this.require('meta-data/instance-id'),
      this.require('meta-data/instance-type'),
      this.require('meta-data/placement/availability-zone'),
    ]);
    return { instanceId, instanceType, availabilityZone };
  }

  /** The instance's primary private IPv4 address: where other hosts of the cluster reach it. */
  async privateAddress(): Promise<string> {
    return this.require('meta-data/local-ipv4');
  }

  /** The pending Spot interruption, or null when none (IMDS answers 404). */
  async spotNotice(): Promise<SpotNotice | null> {
    const body = await this.get('meta-data/spot/instance-action');
    if (body === null) return null;
    let parsed: z.infer<typeof instanceActionSchema>;
    try {
      parsed = instanceActionSchema.parse(JSON.parse(body));
    } catch {
      // The document exists, so an interruption is coming even if we cannot read its details.
      return { action: 'unknown', time: null };
    }
    const time = parsed.time === undefined ? Number.NaN : Date.parse(parsed.time);
    return { action: parsed.action, time: Number.isNaN(time) ? null : time };
  }

  /** Text of `/latest/<path>`, or null on 404. */
  async get(path: string): Promise<string | null> {
    let response = await this.request('GET', path, { 'X-aws-ec2-metadata-token': await this.currentToken() });
    if (response.status === 401) {
      this.token = null; // expired or revoked: fetch a new one once
      response = await this.request('GET', path, { 'X-aws-ec2-metadata-token': await this.currentToken() });
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new ImdsError(`IMDS GET /latest/${path}: HTTP ${response.status}`);
    return response.text();
  }

  private async require(path: string): Promise<string> {
    const value = await this.get(path);
    if (value === null || value.trim() === '') throw new ImdsError(`IMDS GET /latest/${path}: not found`);
    return value.trim();
  }

  private currentToken(): Promise<string> {
    if (this.token && this.clock.now() < this.token.expiresAt - TOKEN_RENEW_MARGIN_MS) {
      return Promise.resolve(this.token.value);
    }
    this.tokenRequest ??= this.fetchToken().finally(() => {
      this.tokenRequest = null;
    });
    return this.tokenRequest;
  }

  private async fetchToken(): Promise<string> {
    const now = this.clock.now();
    const response = await this.request('PUT', 'api/token', {
      'X-aws-ec2-metadata-token-ttl-seconds': String(this.ttlSeconds),
    });
    if (!response.ok) throw new ImdsError(`IMDS PUT /latest/api/token: HTTP ${response.status}`);
    const value = (await response.text()).trim();
    if (value === '') throw new ImdsError('IMDS PUT /latest/api/token: empty token');
    this.token = { value, expiresAt: now + this.ttlSeconds * 1000 };
    return value;
  }

  private async request(
    method: 'GET' | 'PUT',
    path: string,
    headers: Record<string, string>,
  ): Promise<Response> {
    const url = `${this.baseUrl}/latest/${path}`;
    try {
      return await fetch(url, { method, headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new ImdsError(`IMDS ${method} ${url}: ${(error as Error).message}`);
    }
  }
}
