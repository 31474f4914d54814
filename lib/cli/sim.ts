import type { Command } from 'commander';
import { clusterPresets } from '../clusters/load.ts';
import { getPolicy, policyNames } from '../core/policies.ts';
import { writeReport } from '../sim/report/write.ts';
import { loadWorkload, runPolicies } from '../sim/run.ts';
import { BUILTIN_GRAMMAR } from '../traces/generators/builtin.ts';
import { formatIssue, parseTraceFormat, TRACE_FORMATS } from '../traces/types.ts';
import { runSimDemo } from './demo.ts';
import {
  commaList,
  lengthSpread,
  nonNegativeInt,
  nonNegativeNumber,
  positiveInt,
  positiveNumber,
} from './options.ts';
import { progress } from './progress.ts';
import { notCompletedText, simSummaryText } from './sim-summary.ts';

interface SimOptions {
  demo?: boolean;
  trace?: string;
  cluster?: string;
  policy?: string[];
  format?: string;
  skipDays?: number;
  days?: number;
  maxJobs?: number;
  load?: number;
  round: number;
  seed: number;
  report?: string;
  json?: boolean;
  referenceGpu?: string;
  referenceHostGpus?: number;
  restart: number;
  lengthNoise?: number | true;
}

const ISSUES_SHOWN = 10;

export const registerSimCommand = (program: Command): void => {
  program
    .command('sim')
    .description('replay a trace on a cluster under one or more policies')
    .option('--demo', 'a ready-made demo: half a busy Philly day on a 64-GPU testbed under six policies')
    .option(
      '--trace <file|builtin>',
      `trace file (a jobs file .yaml/.json may name models outside the catalog), or builtin: ${BUILTIN_GRAMMAR.join(', ')}`,
    )
    .option(
      '--cluster <preset|file>',
      `cluster preset (${clusterPresets().join(', ')}) or a cluster JSON file of the same shape (lib/clusters/presets/)`,
    )
    .option('--policy <names>', `comma-separated policies: ${policyNames().join(', ')}`, commaList)
    .option(
      '--format <format>',
      `force the trace format instead of detecting it: ${TRACE_FORMATS.join(', ')}`,
    )
    .option('--skip-days <n>', 'skip this many days from the start of the trace', nonNegativeNumber)
    .option('--days <n>', 'keep this many days of arrivals', positiveNumber)
    .option('--max-jobs <n>', 'keep at most this many jobs', nonNegativeInt)
    .option('--load <x>', 'scale the arrival rate by x', positiveNumber)
    .option('--round <seconds>', 'round interval in seconds', positiveNumber, 60)
    .option(
      '--restart <seconds>',
      'checkpoint + restore cost of a preemption or migration',
      nonNegativeNumber,
      30,
    )
    .option('--seed <n>', 'seed for model assignment, generators and the executor', nonNegativeInt, 0)
    .option('--reference-gpu <type>', 'GPU type the trace durations were measured on')
    .option(
      '--reference-host-gpus <n>',
      "GPUs per host of the hardware the trace durations were measured on (default: the trace source's own, e.g. " +
        'Philly 8, Tiresias 4; 8 for a file without one)',
      positiveInt,
    )
    .option(
      '--length-noise [spread]',
      "users' estimates are wrong: each job really runs its iterations × m, m log-uniform in [1/spread, spread] " +
        '(seeded by --seed and the job id; the scheduler sees the declared iterations); spread defaults to 2',
      lengthSpread,
    )
    .option('--report <dir>', 'write the HTML and CSV report into this directory')
    .option('--json', 'one JSON object per policy per line on stdout')
    .action((options: SimOptions, command: Command) => {
      if (options.demo) {
        // The demo is one fixed run: an option given with it would be silently ignored.
        const given = command.options
          .filter((o) => o.long !== '--demo' && command.getOptionValueSource(o.attributeName()) === 'cli')
          .map((o) => o.long);
        if (given.length > 0)
          throw new Error(
            `--demo is one fixed run and takes no other option (got ${given.join(', ')}); for your own run drop --demo and give --trace, --cluster, --policy`,
          );
        return runSimDemo();
      }
      const missing = (['trace', 'cluster', 'policy'] as const).filter((o) => options[o] === undefined);
      if (missing.length > 0)
        throw new Error(`sim needs ${missing.map((o) => `--${o}`).join(', ')} (or --demo)`);
      runSim(options as SimOptions & Required<Pick<SimOptions, 'trace' | 'cluster' | 'policy'>>);
    });
};

const runSim = (options: SimOptions & Required<Pick<SimOptions, 'trace' | 'cluster' | 'policy'>>): void => {
  options.policy.forEach(getPolicy);
  const workload = loadWorkload({
    trace: options.trace,
    cluster: options.cluster,
    seed: options.seed,
    ...(options.format ? { format: parseTraceFormat(options.format) } : {}),
    ...(options.skipDays !== undefined ? { skipDays: options.skipDays } : {}),
    ...(options.days !== undefined ? { days: options.days } : {}),
    ...(options.maxJobs !== undefined ? { maxJobs: options.maxJobs } : {}),
    ...(options.load !== undefined ? { load: options.load } : {}),
    ...(options.referenceGpu ? { referenceGpuType: options.referenceGpu } : {}),
    ...(options.referenceHostGpus !== undefined ? { referenceHostGpus: options.referenceHostGpus } : {}),
  });
  reportIssues(
    workload.traceIssues.map(formatIssue),
    workload.workloadIssues.map((i) => `job ${i.jobId}: ${i.message}`),
  );
  if (workload.jobs.length === 0)
    throw new Error(`trace ${options.trace} has no usable job in the selected window`);
  process.stderr.write(
    `offered load ${workload.offeredLoad.toFixed(2)}; simulating ${workload.jobs.length} jobs of ${options.trace} on ${workload.cluster.name} (${workload.cluster.hosts.reduce((n, h) => n + h.gpuCount, 0)} GPUs)\n`,
  );

  const runs = options.policy.map((name) => {
    const bar = progress(`${name.padEnd(10)}`);
    const [run] = runPolicies(
      workload,
      [name],
      {
        roundSeconds: options.round,
        restartSeconds: options.restart,
        seed: options.seed,
        lengthNoise: options.lengthNoise === true ? 2 : (options.lengthNoise ?? 1),
      },
      (_, f) => bar.update(f),
    );
    bar.stop();
    if (options.json)
      process.stdout.write(`${JSON.stringify({ ...run!.summary, offeredLoad: workload.offeredLoad })}\n`);
    return run!;
  });

  if (!options.json) {
    process.stdout.write(`${simSummaryText(runs.map((r) => r.summary))}\n`);
    const missing = notCompletedText(runs.map((r) => ({ policy: r.summary.policy, jobs: r.result.jobs })));
    if (missing) process.stdout.write(`${missing}\n`);
  }
  if (options.report) {
    const files = writeReport(options.report, workload, runs);
    process.stderr.write(`report: ${files.html}\n`);
  }
};

const reportIssues = (...groups: string[][]): void => {
  const all = groups.flat();
  if (all.length === 0) return;
  process.stderr.write(`warning: ${all.length} trace rows were left out:\n`);
  for (const line of all.slice(0, ISSUES_SHOWN)) process.stderr.write(`  ${line}\n`);
  if (all.length > ISSUES_SHOWN) process.stderr.write(`  … and ${all.length - ISSUES_SHOWN} more\n`);
};
