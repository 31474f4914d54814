/**
 * Where the API is: `--endpoint`, else `TESSERA_ENDPOINT`, else the `ApiUrl` output of a CloudFormation stack
 * (`--stack`). The region for signing comes from the URL of a deployed API, else the environment.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { EndpointNotConfiguredError, EndpointUnreachableError } from './errors.ts';

export const ENDPOINT_ENV = 'TESSERA_ENDPOINT';
/** The stack output holding the API URL (lib/infra/tessera-stack.ts). */
export const API_URL_OUTPUT = 'ApiUrl';

export interface EndpointOptions {
  readonly endpoint?: string;
  readonly stack?: string;
  readonly region?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** For tests: how to read a stack's outputs. */
  readonly describeStack?: (stack: string, region: string | undefined) => Promise<Record<string, string>>;
}

const HOW =
  'give --endpoint <url>, set TESSERA_ENDPOINT, or give --stack <name> of a deployed stack (npm start prints the local URL)';

/** The API's base URL, ending in `/`. */
export const resolveEndpoint = async (options: EndpointOptions = {}): Promise<string> => {
  const env = options.env ?? process.env;
  const explicit = options.endpoint ?? env[ENDPOINT_ENV]?.trim();
  if (explicit) return normalize(explicit);
  if (options.stack) {
    const outputs = await (options.describeStack ?? stackOutputs)(options.stack, options.region);
    const url = outputs[API_URL_OUTPUT];
    if (!url)
      throw new EndpointNotConfiguredError(
        `stack ${options.stack} has no ${API_URL_OUTPUT} output (outputs: ${Object.keys(outputs).join(', ') || 'none'})`,
      );
    return normalize(url);
  }
  throw new EndpointNotConfiguredError(`no Tessera API endpoint: ${HOW}`);
};

const normalize = (url: string): string => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EndpointNotConfiguredError(
      `endpoint "${url}" is not a URL (expected e.g. http://127.0.0.1:4600/v1/)`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new EndpointNotConfiguredError(`endpoint "${url}" must be http:// or https://`);
  return parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
};

const stackOutputs = async (stack: string, region: string | undefined): Promise<Record<string, string>> => {
  const client = new CloudFormationClient(region ? { region } : {});
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stack }));
    const outputs = Stacks?.[0]?.Outputs ?? [];
    return Object.fromEntries(
      outputs.filter((o) => o.OutputKey && o.OutputValue).map((o) => [o.OutputKey!, o.OutputValue!]),
    );
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ValidationError')
      throw new EndpointNotConfiguredError(`stack ${stack} not found: ${(error as Error).message}`);
    if (name === 'CredentialsProviderError') throw error;
    throw new EndpointUnreachableError(`CloudFormation (stack ${stack})`, (error as Error).message);
  } finally {
    client.destroy();
  }
};

/** The signing region: the one in a deployed API's host name (`….execute-api.<region>.amazonaws.com`), else the environment's. */
export const signingRegion = (
  endpoint: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string => {
  const match = /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(endpoint).hostname);
  return match?.[1] ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
};
