import { buildTrace, IdRegistry, type ParsedJob, traceNameOf } from './build.ts';
import { type CsvRecord, readCsvRecords } from './csv.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { assertTraceText } from './text.ts';
import { type Trace, TraceFormatError, type TraceJob, type TraceSource } from './types.ts';

/** Column order of the headerless `pai_job_table.csv` (alibaba/clusterdata, cluster-trace-gpu-v2020). */
export const PAI_JOB_COLUMNS = ['job_name', 'inst_id', 'user', 'status', 'start_time', 'end_time'] as const;

/** Column order of the headerless `pai_task_table.csv`. `plan_gpu` is in percent of one GPU. */
export const PAI_TASK_COLUMNS = [
  'job_name',
  'task_name',
  'inst_num',
  'status',
  'start_time',
  'end_time',
  'plan_cpu',
  'plan_mem',
  'plan_gpu',
  'gpu_type',
] as const;

/** Job statuses the trace uses; only `Terminated` jobs succeeded. */
export const PAI_STATUSES = ['Terminated', 'Failed', 'Running', 'Waiting'] as const;

/** What one job's tasks add up to. */
interface TaskTotals {
  tasks: number;
  /** Whole GPUs: each instance needs ceil(plan_gpu / 100) of them. */
  gpus: number;
  /** Exact request in GPUs, fractions included. */
  gpuRequest: number;
  start?: number;
  end?: number;
  gpusByType: Map<string, number>;
  /** Line of a malformed task row of this job, if any. */
  brokenAt?: number;
}

/**
 * Alibaba PAI 2020 GPU trace: the job table joined with the task table. A job's submit time is
 * the job's `start_time`; its run time spans its tasks' earliest start to latest end; its GPU count
 * sums `inst_num × ceil(plan_gpu / 100)` over its tasks (instances asking for a fraction of a GPU
 * still hold a whole one when GPUs are not shared; the exact request is kept in `labels.gpuRequest`).
 * The user becomes the tenant. CPU-only jobs, jobs without tasks or task times, and jobs with a
 * malformed task row are left out with an issue. An optional header row is skipped.
 */
export const parseAlibabaPai = (jobTable: TraceSource, taskTable: TraceSource): Trace => {
  assertTraceText(jobTable.text, jobTable.fileName, 'a PAI pai_job_table.csv');
  assertTraceText(taskTable.text, taskTable.fileName, 'a PAI pai_task_table.csv');
  const jobIssues = new IssueLog(jobTable.fileName);
  const taskIssues = new IssueLog(taskTable.fileName);
  const jobRecords = dataRecords(jobTable, PAI_JOB_COLUMNS, jobIssues, 'pai_job_table');
  const taskRecords = dataRecords(taskTable, PAI_TASK_COLUMNS, taskIssues, 'pai_task_table');

  const jobNames = new Set(jobRecords.map((r) => (r.fields[0] ?? '').trim()));
  const totals = sumTasks(taskRecords, jobNames, taskIssues, jobTable.fileName);

  const ids = new IdRegistry(jobIssues);
  const parsed: ParsedJob[] = [];
  for (const record of jobRecords) {
    const f = new FieldReader(jobIssues, record.line, columnReader(PAI_JOB_COLUMNS, record));
    const id = f.text('job_name');
    const status = f.oneOf('status', PAI_STATUSES);
    const submitTime = f.nonNegativeNumber('start_time');
    const tenant = f.optionalText('user');
    if (!f.ok || !ids.claim(id, record.line, 'job_name')) continue;
    const tasks = totals.get(id);
    if (tasks === undefined) {
      f.fail(undefined, `job left out: no tasks in ${taskTable.fileName}`);
    } else if (tasks.brokenAt !== undefined) {
      f.fail(undefined, `job left out: its task at ${taskTable.fileName}:${tasks.brokenAt} is malformed`);
    } else if (tasks.gpus === 0) {
      f.fail('plan_gpu', 'CPU-only job left out (no task requests a GPU)');
    } else if (tasks.start === undefined || tasks.end === undefined || !(tasks.end > tasks.start)) {
      f.fail(
        'end_time',
        `job left out: its tasks have no start and later end time, so its run time is unknown (status ${status})`,
      );
    }
    if (!f.ok || tasks === undefined || tasks.start === undefined || tasks.end === undefined) continue;
    const labels: Record<string, string> = {
      status,
      start_time: f.optionalText('start_time') ?? '',
      tasks: String(tasks.tasks),
    };
    if (tasks.gpuRequest !== tasks.gpus) labels.gpuRequest = String(Number(tasks.gpuRequest.toFixed(4)));
    if (tasks.gpusByType.size > 1) labels.gpuTypes = [...tasks.gpusByType.keys()].join(',');
    const job: TraceJob = { id, submitTime, gpus: tasks.gpus, duration: tasks.end - tasks.start, labels };
    const gpuType = largestShare(tasks.gpusByType);
    if (gpuType !== undefined) job.gpuType = gpuType;
    if (tenant !== undefined) job.tenant = tenant;
    parsed.push({ line: record.line, job });
  }
  return buildTrace(
    traceNameOf(jobTable.fileName),
    'alibaba-pai',
    `${jobTable.fileName} + ${taskTable.fileName}`,
    parsed,
    [...jobIssues.list(), ...taskIssues.list()],
  );
};

/** The records after an optional header, after checking the first one has the table's width. */
const dataRecords = (
  source: TraceSource,
  columns: readonly string[],
  issues: IssueLog,
  table: string,
): CsvRecord[] => {
  const records = readCsvRecords(source.text, issues);
  const first = records[0];
  if (first === undefined) return [];
  const hasHeader = first.fields[0]?.trim() === columns[0];
  const sample = hasHeader ? (records[1] ?? first) : first;
  if (sample.fields.length !== columns.length) {
    throw new TraceFormatError(
      `${source.fileName}:${sample.line}: not a PAI ${table}.csv: expected ${columns.length} comma-separated fields ` +
        `(${columns.join(',')}), got ${sample.fields.length}`,
    );
  }
  const data = hasHeader ? records.slice(1) : records;
  return data.filter((r) => {
    if (r.fields.length === columns.length) return true;
    issues.add(
      r.line,
      undefined,
      `expected ${columns.length} comma-separated fields, got ${r.fields.length}`,
    );
    return false;
  });
};

const sumTasks = (
  records: readonly CsvRecord[],
  jobNames: ReadonlySet<string>,
  issues: IssueLog,
  jobFile: string,
): Map<string, TaskTotals> => {
  const totals = new Map<string, TaskTotals>();
  for (const record of records) {
    const f = new FieldReader(issues, record.line, columnReader(PAI_TASK_COLUMNS, record));
    const jobName = f.text('job_name');
    if (jobName !== '' && !jobNames.has(jobName)) {
      f.fail('job_name', `task of a job not in ${jobFile}`, jobName);
      continue;
    }
    const instances = f.positiveInteger('inst_num');
    const planGpu = f.optionalNonNegativeNumber('plan_gpu') ?? 0;
    const start = f.optionalNonNegativeNumber('start_time');
    const end = f.optionalNonNegativeNumber('end_time');
    const gpuType = f.optionalText('gpu_type');
    if (jobName === '') continue;
    const t = totals.get(jobName) ?? {
      tasks: 0,
      gpus: 0,
      gpuRequest: 0,
      gpusByType: new Map<string, number>(),
    };
    totals.set(jobName, t);
    if (!f.ok) {
      t.brokenAt ??= record.line;
      continue;
    }
    // Tolerance: 100.0000001 percent is one GPU, not two.
    const gpus = instances * Math.ceil(planGpu / 100 - 1e-6);
    t.tasks += 1;
    t.gpus += gpus;
    t.gpuRequest += (instances * planGpu) / 100;
    if (start !== undefined) t.start = Math.min(t.start ?? start, start);
    if (end !== undefined) t.end = Math.max(t.end ?? end, end);
    if (gpuType !== undefined && gpus > 0) t.gpusByType.set(gpuType, (t.gpusByType.get(gpuType) ?? 0) + gpus);
  }
  return totals;
};

const columnReader =
  (columns: readonly string[], record: CsvRecord) =>
  (column: string): string | undefined =>
    record.fields[columns.indexOf(column)];

/** The GPU type holding most of the job's GPUs (first listed on a tie). */
const largestShare = (byType: ReadonlyMap<string, number>): string | undefined => {
  let best: [string, number] | undefined;
  for (const entry of byType) if (best === undefined || entry[1] > best[1]) best = entry;
  return best?.[0];
};
