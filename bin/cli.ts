import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { commandGroup, unknownCommandHint } from '../lib/cli/command-groups.ts';

type Register = (program: Command) => void;

/** Each command's module, loaded only when that command runs (or for help): the CLI starts faster. */
const COMMANDS: Record<string, (() => Promise<Register>)[]> = {
  sim: [() => import('../lib/cli/sim.ts').then((m) => m.registerSimCommand)],
  bench: [() => import('../lib/cli/bench.ts').then((m) => m.registerBenchCommand)],
  local: [() => import('../lib/cli/local-cloud.ts').then((m) => m.registerLocalCommand)],
  api: [() => import('../lib/cli/api-commands.ts').then((m) => m.registerApiCommands)],
  dashboard: [() => import('../lib/cli/dashboard.ts').then((m) => m.registerDashboardCommand)],
};
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// Output piped into `head` or `less` that closes early: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const program = new Command()
  .name('tessera')
  .description('Tessera: a serverless GPU-cluster scheduler for deep-learning training — CLI')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(`tessera: ${text}`) });

const name = process.argv[2] ?? '';
const hint = unknownCommandHint(name);
if (hint) {
  process.stderr.write(`tessera: ${hint}\n`);
  process.exit(1);
}
const group = commandGroup(name);
// `--version` needs no command; anything else unknown (help, a typo) needs them all for the list of commands.
const loads =
  name === '--version' || name === '-V' ? [] : (COMMANDS[group] ?? Object.values(COMMANDS).flat());
for (const load of loads) (await load())(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`tessera: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
