import type { Command } from 'commander';
import { TesseraClient } from '../client/index.ts';
import { clientApiCaller } from '../local/dashboard/api-caller.ts';
import { startDashboard } from '../local/dashboard/server.ts';
import { nonNegativeInt } from './options.ts';

interface DashboardCliOptions {
  endpoint?: string;
  stack?: string;
  region?: string;
  port: number;
  sample: number;
}

/**
 * `tessera dashboard`: serves the dashboard on 127.0.0.1 and calls a deployed stack's API with the caller's own AWS
 * credentials (the default chain, SigV4), so the browser holds none and sees what that IAM identity may see.
 */
export const registerDashboardCommand = (program: Command): void => {
  program
    .command('dashboard')
    .description("serve the dashboard locally for a deployed stack's API, signed with your AWS credentials")
    .option('--endpoint <url>', 'the API URL (the stack output ApiUrl); default $TESSERA_ENDPOINT')
    .option('--stack <name>', 'a deployed stack whose ApiUrl output to use')
    .option('--region <region>', 'AWS region of the API; default from the URL, else $AWS_REGION')
    .option('--port <n>', 'local port (0 = any free one)', nonNegativeInt, 8080)
    .option(
      '--sample <seconds>',
      'seconds between refreshes of the cluster and the job list',
      nonNegativeInt,
      5,
    )
    .action(async (options: DashboardCliOptions) => {
      const client = await TesseraClient.connect({
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        ...(options.stack ? { stack: options.stack } : {}),
        ...(options.region ? { region: options.region } : {}),
      });
      const dashboard = await startDashboard({
        api: clientApiCaller(client),
        port: options.port,
        sampleSeconds: Math.max(1, options.sample),
      });
      process.stdout.write(`Tessera dashboard for ${client.endpoint}: ${dashboard.url}  (Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await dashboard.stop();
    });
};
