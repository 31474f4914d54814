import { Command } from 'commander';
import { registerBenchCommand } from '../lib/cli/bench.ts';
import { registerDashboardCommand } from '../lib/cli/dashboard.ts';
import { registerSimCommand } from '../lib/cli/sim.ts';

const program = new Command()
  .name('tessera')
  .description('Tessera: a serverless GPU-cluster scheduler for deep-learning training — CLI')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(`tessera: ${text}`) });

registerSimCommand(program);
registerBenchCommand(program);
registerDashboardCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`tessera: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
