import type { Command } from 'commander';
import { BENCH_SUITES, getSuite } from '../../bench/suites.ts';
import type { BenchRow } from '../../bench/types.ts';
import { lengthSpread, nonNegativeInt } from './options.ts';
import { formatTable } from './table.ts';

interface BenchCliOptions {
  quick?: boolean;
  json?: boolean;
  seed: number;
  lengthNoise?: number | true;
  setup?: string;
  heldOut?: boolean;
  trace?: string;
  cluster?: string;
}

export const registerBenchCommand = (program: Command): void => {
  program
    .command('bench')
    .description(`run a benchmark suite: ${[...BENCH_SUITES.keys()].join(', ')}`)
    .argument('<name>', 'suite name')
    .option('--quick', 'a reduced run (CI smoke tests): most suites under a minute, flagship ~20 s')
    .option('--json', 'one JSON object per measurement per line on stdout')
    .option('--seed <n>', 'seed', nonNegativeInt, 0)
    .option(
      '--length-noise [spread]',
      'suites that simulate traces (flagship): each job really runs its iterations × m, m log-uniform in [1/spread, spread]; the scheduler sees the declared iterations; spread defaults to 2',
      lengthSpread,
    )
    .option('--setup <text>', 'suites with several setups (flagship): only those whose names contain text')
    .option(
      '--held-out',
      'flagship: the held-out matrix (public workloads on windows, clusters and rates the named matrix does not use)',
    )
    .option(
      '--trace <file>',
      'flagship: instead of a matrix, one trace file (any format `tessera sim --trace` reads) on the cluster of --cluster',
    )
    .option('--cluster <name>', 'flagship with --trace: the cluster preset to replay the trace on')
    .addHelpText('after', `\nSuites:\n${suiteList()}`)
    .action(async (name: string, options: BenchCliOptions, command: Command) => {
      const suite = getSuite(name);
      // Options only flagship reads: any other suite would run as if they had not been given.
      const flagshipOnly = ['--length-noise', '--setup', '--held-out', '--trace', '--cluster'].filter(
        (flag) =>
          command.getOptionValueSource(command.options.find((o) => o.long === flag)!.attributeName()) ===
          'cli',
      );
      if (name !== 'flagship' && flagshipOnly.length > 0)
        throw new Error(
          `${flagshipOnly.join(', ')}: only bench flagship takes ${flagshipOnly.length > 1 ? 'these' : 'this'}; bench ${name} would ignore ${flagshipOnly.length > 1 ? 'them' : 'it'}`,
        );
      if ((options.trace === undefined) !== (options.cluster === undefined))
        throw new Error(
          '--trace and --cluster go together: a trace file and the cluster preset to replay it on',
        );
      const rows: BenchRow[] = [];
      for await (const row of suite.run({
        quick: options.quick ?? false,
        seed: options.seed,
        lengthNoise: options.lengthNoise === true ? 2 : (options.lengthNoise ?? 1),
        ...(options.setup === undefined ? {} : { only: options.setup }),
        heldOut: options.heldOut ?? false,
        ...(options.trace && options.cluster
          ? { trace: { path: options.trace, cluster: options.cluster } }
          : {}),
        log: (m) => process.stderr.write(`${m}\n`),
      })) {
        rows.push(row);
        if (options.json) process.stdout.write(`${JSON.stringify(row)}\n`);
      }
      if (!options.json && suite.formatText) process.stdout.write(`${suite.formatText(rows)}\n`);
      else if (!options.json) {
        const cell = (v: unknown) =>
          typeof v === 'number' ? String(Number(v.toPrecision(6))) : String(v ?? '');
        process.stdout.write(
          `${formatTable(
            suite.columns,
            rows.map((r) => suite.columns.map((c) => cell(r[c]))),
          )}\n`,
        );
      }
    });
};

/** Each suite and what it measures, for `tessera bench --help` (descriptions wrapped under their names). */
export const suiteList = (width = 80): string => {
  const names = [...BENCH_SUITES.keys()];
  const pad = Math.max(...names.map((n) => n.length)) + 4;
  return [...BENCH_SUITES.values()]
    .map(
      (suite) =>
        `  ${suite.name.padEnd(pad - 2)}${wrap(suite.description, width - pad).join(`\n${' '.repeat(pad)}`)}`,
    )
    .join('\n');
};

const wrap = (text: string, width: number): string[] => {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
};
