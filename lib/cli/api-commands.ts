/**
 * The job commands, against the local cloud or a deployed stack: `submit`, `jobs`, `job`, `logs`, `cancel`,
 * `cluster`.
 * Each takes `--endpoint`, `--stack`, `--region` and `--json`; failures print one clear line (or a JSON error
 * object with `--json`) and exit non-zero: 2 for a spec the schema rejects, 1 for anything else.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Command, Option } from 'commander';
import { ApiError, TesseraClient, TesseraClientError } from '../client/index.ts';
import type { JobView } from '../client/types.ts';
import { isTerminal, JOB_STATUSES, type JobStatus } from '../core/model/job.ts';
import { readJobFile } from './job-file.ts';
import { clusterSummary, jobDetails, jobsTable, neverStarted } from './job-format.ts';
import { FOLLOW_START, formatLogLine, nextFollowState, noOutputNote } from './log-follow.ts';
import { nonNegativeInt, positiveNumber } from './options.ts';
import { watchFrameStart } from './watch-frame.ts';
import { bringWorkdirs } from './workdir/bring-workdirs.ts';

interface ConnectionOptions {
  endpoint?: string;
  stack?: string;
  region?: string;
  json?: boolean;
}

const ACTIVE: readonly JobStatus[] = ['queued', 'running', 'checkpointing', 'suspended'];

const out = (text: string) => process.stdout.write(`${text}\n`);
const json = (value: unknown) => out(JSON.stringify(value));

const withConnection = (command: Command): Command =>
  command
    .option('--endpoint <url>', 'API URL (default: $TESSERA_ENDPOINT)')
    .option('--stack <name>', 'a deployed stack: the API URL from its CloudFormation outputs')
    .option('--region <region>', 'AWS region of the stack (default: the SDK’s)')
    .option('--json', 'machine-readable output');

const connect = (options: ConnectionOptions) =>
  TesseraClient.connect({
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.stack ? { stack: options.stack } : {}),
    ...(options.region ? { region: options.region } : {}),
  });

/** Runs a command body; known errors become one line (or a JSON object) and an exit code. */
const guarded =
  <A extends unknown[]>(body: (...args: A) => Promise<void>) =>
  async (...args: A): Promise<void> => {
    // commander passes (arguments…, options, command)
    const options = args.at(-2) as ConnectionOptions | undefined;
    try {
      await body(...args);
    } catch (error) {
      if (!(error instanceof TesseraClientError)) throw error;
      reportError(error, options?.json ?? false);
      process.exitCode = 1;
    }
  };

const reportError = (error: TesseraClientError, asJson: boolean): void => {
  const issues = error instanceof ApiError ? error.issues : [];
  if (asJson) {
    json({
      error: error.name,
      message: error.message,
      ...(error instanceof ApiError ? { status: error.status } : {}),
      ...(issues.length > 0 ? { issues } : {}),
    });
    return;
  }
  process.stderr.write(`tessera: ${error.message}\n`);
  if (issues.length > 1) for (const i of issues) process.stderr.write(`  ${i.field}: ${i.rule}\n`);
};

export const registerApiCommands = (program: Command): void => {
  withConnection(
    program
      .command('submit')
      .description('submit the job(s) of a YAML or JSON file: one job, a list, or a sweep (docs/job-spec.md)')
      .argument('<file>', 'job spec file (.yaml, .yml or .json; - reads stdin)')
      .option(
        '--set <key=value>',
        'override a field of every job (repeatable; dotted keys: env.LR=0.1)',
        collect,
        [],
      ),
  ).action(guarded(submit));

  withConnection(
    program
      .command('jobs')
      .description('list your jobs: status, GPUs, queue position, why each waits, estimated start')
      .option('--all', 'include finished, failed and cancelled jobs')
      .addOption(new Option('--status <status>', 'only jobs in this status').choices([...JOB_STATUSES]))
      .option('--watch [seconds]', 'refresh every few seconds until Ctrl-C', positiveNumber),
  ).action(guarded(listJobs));

  withConnection(
    program
      .command('job')
      .description('one job: spec, placement, wait reason and timeline')
      .argument('<id>', 'job id'),
  ).action(guarded(showJob));

  withConnection(
    program
      .command('logs')
      .description('a job’s worker output (stdout and stderr of every rank), as shipped to the log store')
      .argument('<id>', 'job id')
      .option('--rank <n>', 'only this rank', nonNegativeInt)
      .option('--follow', 'keep printing new lines until the job has ended and its logs are drained')
      .option('--interval <seconds>', 'poll interval with --follow', positiveNumber, 2)
      .option(
        '--drain-timeout <seconds>',
        'with --follow: stop this long after the job ended even if a rank never shipped its last chunk (its host died)',
        positiveNumber,
        30,
      ),
  ).action(guarded(showLogs));

  withConnection(
    program
      .command('cancel')
      .description('cancel jobs (running ones stop at the next round)')
      .argument('<ids...>', 'job ids'),
  ).action(guarded(cancel));

  withConnection(
    program
      .command('cluster')
      .description('hosts, GPUs busy and free per type, and the fleet’s cost per hour'),
  ).action(guarded(cluster));
};

const collect = (value: string, previous: string[]) => [...previous, value];

/** The job file's text (`-`: stdin); a file that cannot be read is a usage error naming it (exit 1). */
const readJobText = (file: string): string => {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : message;
    throw new Error(`cannot read the job file ${file}: ${why}`);
  }
};

const submit = async (file: string, options: ConnectionOptions & { set: string[] }) => {
  let text: string;
  try {
    text = readJobText(file);
  } catch (error) {
    // With --json the error is a JSON object on stdout, as for every other failure (docs/cli.md).
    if (!options.json) throw error;
    json({ error: 'UnreadableJobFile', message: (error as Error).message });
    process.exitCode = 1;
    return;
  }
  const read = readJobFile(text, options.set);
  if (!read.ok) {
    const message = `${file}: ${read.issues.length} problem(s), nothing submitted`;
    if (options.json) json({ error: 'InvalidJobSpec', message, issues: read.issues });
    else {
      process.stderr.write(`tessera: ${message}:\n`);
      for (const i of read.issues) process.stderr.write(`  ${i.job}: ${i.field}: ${i.rule}\n`);
    }
    process.exitCode = 2;
    return;
  }
  const client = await connect(options);
  // Local working directories go to the cluster bucket first; the jobs then name the uploaded archives.
  const jobs = await bringWorkdirs(read.jobs, client, {
    baseDir: file === '-' ? process.cwd() : dirname(file),
    report: (line) => process.stderr.write(`${line}\n`),
  });
  for (const { label, document } of jobs) {
    const result = await client.submit(document);
    if (options.json) json({ ...result, label });
    else
      out(
        `${result.job.jobId}  ${result.created ? 'submitted' : 'already submitted (same client token)'}  ${result.job.name ?? label}${ownModelNote(result.job)}`,
      );
  }
};

/** A model outside the catalog is accepted without a profile: say so, so a misspelt catalog name is noticed. */
const ownModelNote = (job: { modelBasis: string; modelName?: string }): string =>
  job.modelBasis === 'estimated'
    ? `  (model "${job.modelName}" is not in the catalog and has no profile: conservative estimate until measured)`
    : '';

const listJobs = async (
  options: ConnectionOptions & { all?: boolean; status?: JobStatus; watch?: number | true },
) => {
  const client = await connect(options);
  const fetchJobs = async () => {
    const jobs = await client.listAllJobs(options.status ? { status: options.status } : {});
    return options.all || options.status ? jobs : jobs.filter((j) => ACTIVE.includes(j.status));
  };
  const show = (jobs: JobView[]) => {
    if (options.json) json({ jobs, at: new Date().toISOString() });
    else
      out(
        jobs.length > 0
          ? jobsTable(jobs, Date.now() / 1000)
          : options.all
            ? 'no jobs'
            : 'no active jobs (--all shows finished ones)',
      );
  };
  if (options.watch === undefined) return show(await fetchJobs());
  const seconds = options.watch === true ? 2 : options.watch;
  for (let first = true; ; first = false) {
    const jobs = await fetchJobs();
    if (!options.json) process.stdout.write(watchFrameStart(process.stdout.isTTY === true, first));
    if (!options.json) out(`every ${seconds}s — Ctrl-C to stop — ${new Date().toLocaleTimeString()}\n`);
    show(jobs);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
};

const showJob = async (id: string, options: ConnectionOptions) => {
  const client = await connect(options);
  const job = await client.getJob(id);
  if (options.json) json({ job });
  else out(jobDetails(job, Date.now() / 1000));
};

const showLogs = async (
  id: string,
  options: ConnectionOptions & { rank?: number; follow?: boolean; interval: number; drainTimeout: number },
) => {
  const client = await connect(options);
  let cursor: string | undefined;
  let follow = FOLLOW_START;
  let printed = 0;
  for (;;) {
    const page = await client.logs(id, {
      ...(options.rank !== undefined ? { rank: options.rank } : {}),
      ...(cursor ? { cursor } : {}),
    });
    printed += page.lines.length;
    for (const line of page.lines) {
      if (options.json) json(line);
      else {
        const { text, stderr } = formatLogLine(line, options.rank === undefined);
        (stderr ? process.stderr : process.stdout).write(`${text}\n`);
      }
    }
    cursor = page.nextCursor;
    if (page.more) continue;
    const next = nextFollowState(follow, page, Date.now() / 1000, {
      intervalSeconds: options.interval,
      drainSeconds: options.drainTimeout,
    });
    if (!options.follow || next.stop) {
      if (printed === 0 && !options.json) {
        // An ended job with no lines: say whether it ever ran (its timeline), not that its workers were silent.
        const never = isTerminal(page.status) && neverStarted(await client.getJob(id));
        process.stderr.write(`${noOutputNote(id, page.status, options.rank, never)}\n`);
      }
      return;
    }
    follow = next.state;
    await new Promise((resolve) => setTimeout(resolve, options.interval * 1000));
  }
};

const cancel = async (ids: string[], options: ConnectionOptions) => {
  const client = await connect(options);
  let failed = false;
  for (const id of ids) {
    try {
      const { job, immediate } = await client.cancel(id);
      if (options.json)
        json({ jobId: id, status: job.status, cancelRequested: job.cancelRequested ?? false });
      else
        out(
          `${id}  ${job.status === 'cancelled' ? 'cancelled' : immediate ? job.status : 'cancel requested: stops at the next round'}`,
        );
    } catch (error) {
      if (!(error instanceof TesseraClientError)) throw error;
      failed = true;
      if (options.json) json({ jobId: id, error: error.name, message: error.message });
      // Most API messages already name the job ("job x not found"); name it once.
      else process.stderr.write(`tessera: ${error.message.includes(id) ? '' : `${id}: `}${error.message}\n`);
    }
  }
  if (failed) process.exitCode = 1;
};

const cluster = async (options: ConnectionOptions) => {
  const client = await connect(options);
  const view = await client.cluster();
  if (options.json) json(view);
  else out(clusterSummary(view));
};
