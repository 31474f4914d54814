/**
 * A typed client for every route of the Tessera API (functions/api/routes.ts). Requests are signed with the AWS
 * SDK's own SigV4 signer (service `execute-api`) using the default credential chain, as API Gateway's IAM auth
 * expects; answers become typed values or typed errors (errors.ts).
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { type EndpointOptions, resolveEndpoint, signingRegion } from './endpoint.ts';
import { apiErrorFor, EndpointUnreachableError, NoCredentialsError } from './errors.ts';
import type {
  ClusterView,
  ConfigView,
  JobPage,
  JobView,
  ListJobsOptions,
  LogPageView,
  LogsOptions,
  SubmitResult,
} from './types.ts';

export interface TesseraClientOptions {
  /** The API base URL (e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/v1/` or the local cloud's). */
  readonly endpoint: string;
  readonly region?: string;
  /** Default: the AWS SDK's default credential chain (env, profile, SSO, container, instance role). */
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  readonly timeoutSeconds?: number;
}

type Method = 'GET' | 'POST' | 'DELETE';

export class TesseraClient {
  readonly endpoint: string;
  /** The caller's AWS credentials and signing region: also what the CLI uploads working directories with. */
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  readonly region: string;
  private readonly signer: SignatureV4;
  private readonly timeoutSeconds: number;

  constructor(options: TesseraClientOptions) {
    this.endpoint = options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`;
    this.timeoutSeconds = options.timeoutSeconds ?? 30;
    this.credentials = options.credentials ?? fromNodeProviderChain();
    this.region = options.region ?? signingRegion(this.endpoint);
    this.signer = new SignatureV4({
      service: 'execute-api',
      region: this.region,
      credentials: this.credentials,
      sha256: Sha256,
    });
  }

  /** A client for `--endpoint`, `TESSERA_ENDPOINT` or `--stack`. */
  static async connect(options: EndpointOptions & Omit<TesseraClientOptions, 'endpoint'> = {}) {
    const endpoint = await resolveEndpoint(options);
    return new TesseraClient({ ...options, endpoint });
  }

  /** `POST /jobs`: the document as submitted (the server validates it with the job-spec schema). */
  submit(document: unknown): Promise<SubmitResult> {
    return this.request<SubmitResult>('POST', 'jobs', { body: JSON.stringify(document) });
  }

  /** `GET /jobs`: one page of the caller's jobs, newest first. */
  listJobs(options: ListJobsOptions = {}): Promise<JobPage> {
    const query: Record<string, string> = {};
    if (options.status) query.status = options.status;
    if (options.limit !== undefined) query.limit = String(options.limit);
    if (options.nextToken) query.nextToken = options.nextToken;
    return this.request<JobPage>('GET', 'jobs', { query });
  }

  /** Every page of `GET /jobs`, up to `max` jobs. */
  async listAllJobs(options: Omit<ListJobsOptions, 'nextToken'> & { max?: number } = {}): Promise<JobView[]> {
    const jobs: JobView[] = [];
    const max = options.max ?? 1000;
    let nextToken: string | undefined;
    do {
      const page = await this.listJobs({
        ...options,
        limit: options.limit ?? 100,
        ...(nextToken ? { nextToken } : {}),
      });
      jobs.push(...page.jobs);
      nextToken = page.nextToken;
    } while (nextToken && jobs.length < max);
    return jobs.slice(0, max);
  }

  /** `GET /jobs/{id}`. */
  async getJob(jobId: string): Promise<JobView> {
    return (await this.request<{ job: JobView }>('GET', `jobs/${encodeURIComponent(jobId)}`)).job;
  }

  /** `GET /jobs/{id}/logs`: one page of the job's worker output; `nextCursor` reads on (and polls for more). */
  logs(jobId: string, options: LogsOptions = {}): Promise<LogPageView> {
    const query: Record<string, string> = {};
    if (options.rank !== undefined) query.rank = String(options.rank);
    if (options.cursor) query.cursor = options.cursor;
    if (options.limit !== undefined) query.limit = String(options.limit);
    return this.request<LogPageView>('GET', `jobs/${encodeURIComponent(jobId)}/logs`, { query });
  }

  /** `DELETE /jobs/{id}`: a waiting job is cancelled at once; a running one is stopped by the next round. */
  async cancel(jobId: string): Promise<{ job: JobView; immediate: boolean }> {
    const { status, body } = await this.send<{ job: JobView }>('DELETE', `jobs/${encodeURIComponent(jobId)}`);
    return { job: body.job, immediate: status === 200 };
  }

  /** `GET /cluster`: hosts, GPUs and job counts. */
  cluster(): Promise<ClusterView> {
    return this.request<ClusterView>('GET', 'cluster');
  }

  /** `GET /config`: the cluster bucket for working directories (and, locally, its S3 endpoint). */
  config(): Promise<ConfigView> {
    return this.request<ConfigView>('GET', 'config');
  }

  private async request<T>(
    method: Method,
    path: string,
    options: { query?: Record<string, string>; body?: string } = {},
  ): Promise<T> {
    return (await this.send<T>(method, path, options)).body;
  }

  private async send<T>(
    method: Method,
    path: string,
    options: { query?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; body: T }> {
    const { status, statusText, body } = await this.exchange(method, path, options);
    if (status < 200 || status >= 300) throw apiErrorFor(status, body, statusText);
    return { status, body: body as T };
  }

  /**
   * One signed call whatever its status (the dashboard's proxy passes errors through): the status and the parsed
   * JSON body. Throws only when no JSON answer came back (endpoint unreachable, not the Tessera API, no credentials).
   */
  async exchange(
    method: Method,
    path: string,
    options: { query?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; statusText: string; body: unknown }> {
    const url = new URL(path, this.endpoint);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { host: url.host, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const signed = await this.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    let response: Response;
    try {
      const { host: _host, ...sendHeaders } = signed.headers;
      response = await fetch(url, {
        method,
        headers: sendHeaders,
        ...(options.body !== undefined ? { body: options.body } : {}),
        signal: AbortSignal.timeout(this.timeoutSeconds * 1000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new EndpointUnreachableError(
        this.endpoint,
        cause?.code ?? cause?.message ?? (error as Error).message,
      );
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new EndpointUnreachableError(
        this.endpoint,
        `HTTP ${response.status} with a body that is not JSON — is this the Tessera API? (${text.slice(0, 80)})`,
      );
    }
    return { status: response.status, statusText: response.statusText, body };
  }

  private async sign(request: Parameters<SignatureV4['sign']>[0]) {
    try {
      return await this.signer.sign(request);
    } catch (error) {
      if ((error as Error).name === 'CredentialsProviderError')
        throw new NoCredentialsError(
          `no AWS credentials: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE, or run aws configure / aws sso login (${(error as Error).message})`,
        );
      throw error;
    }
  }
}
