import type { Command } from 'commander';
import { signedApiCaller } from '../local/dashboard/api-caller.ts';
import { startDashboard } from '../local/dashboard/server.ts';
import { nonNegativeInt } from './options.ts';

interface DashboardCliOptions {
  endpoint?: string;
  region?: string;
  port: number;
  sample: number;
}

/** The region of an API Gateway invoke URL (`https://<id>.execute-api.<region>.amazonaws.com/<stage>`). */
export const regionOfApiUrl = (url: string): string | undefined =>
  /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(url)?.[1];

/**
 * `tessera dashboard`: serves the dashboard on 127.0.0.1 and calls a deployed stack's API with the caller's own AWS
 * credentials (the default chain, SigV4), so the browser holds none and sees what that IAM identity may see.
 */
export const registerDashboardCommand = (program: Command): void => {
  program
    .command('dashboard')
    .description("serve the dashboard locally for a deployed stack's API, signed with your AWS credentials")
    .option('--endpoint <url>', 'the API URL (the stack output ApiUrl); default $TESSERA_ENDPOINT')
    .option('--region <region>', 'AWS region of the API; default from the URL, else $AWS_REGION')
    .option('--port <n>', 'local port (0 = any free one)', nonNegativeInt, 8080)
    .option(
      '--sample <seconds>',
      'seconds between refreshes of the cluster and the job list',
      nonNegativeInt,
      5,
    )
    .action(async (options: DashboardCliOptions) => {
      const endpoint = options.endpoint ?? process.env.TESSERA_ENDPOINT;
      if (!endpoint)
        throw new Error(
          'no API endpoint: pass --endpoint <url> or set TESSERA_ENDPOINT (the stack output ApiUrl)',
        );
      const region = options.region ?? regionOfApiUrl(endpoint) ?? process.env.AWS_REGION;
      if (!region) throw new Error('no AWS region: pass --region or set AWS_REGION');
      const dashboard = await startDashboard({
        api: signedApiCaller(endpoint, region),
        port: options.port,
        sampleSeconds: Math.max(1, options.sample),
      });
      process.stdout.write(`Tessera dashboard for ${endpoint}: ${dashboard.url}  (Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await dashboard.stop();
    });
};
