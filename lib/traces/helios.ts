import { buildTrace, IdRegistry, type ParsedJob, traceNameOf } from './build.ts';
import { extraLabels, readHeaderedCsv } from './csv.ts';
import { FieldReader, parseDecimal } from './fields.ts';
import { IssueLog } from './issues.ts';
import { assertTraceText } from './text.ts';
import { type Trace, TraceFormatError, type TraceJob } from './types.ts';

const HEADER = {
  what: 'a Helios cluster_log.csv',
  required: ['job_id', 'gpu_num', 'submit_time'],
  example:
    'job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue',
} as const;

const MAPPED = ['job_id', 'vc', 'gpu_num', 'duration'];

/**
 * SenseTime Helios `cluster_log.csv` (S-Lab-System-Group/HeliosData). Times `YYYY-MM-DD HH:MM:SS`
 * are read as UTC (only differences matter). Run time is `duration`, or `end_time − start_time`
 * when the column is absent or blank. The virtual cluster (`vc`) becomes the tenant; user, job
 * name, state, CPU and node counts are kept as labels. CPU-only jobs (`gpu_num` 0) are left out.
 */
export const parseHelios = (text: string, fileName: string): Trace => {
  assertTraceText(text, fileName, HEADER.what);
  const issues = new IssueLog(fileName);
  const { columns, rows } = readHeaderedCsv(text, fileName, HEADER, issues);
  const hasDuration = columns.includes('duration');
  if (!hasDuration && !(columns.includes('start_time') && columns.includes('end_time'))) {
    throw new TraceFormatError(
      `${fileName}:1: not ${HEADER.what}: header needs a duration column or start_time and end_time (expected "${HEADER.example}")`,
    );
  }
  const ids = new IdRegistry(issues);
  const parsed: ParsedJob[] = [];
  for (const row of rows) {
    const f = new FieldReader(issues, row.line, (c) => row.values.get(c));
    const id = f.text('job_id');
    const gpus = gpuCount(f, row.values.get('gpu_num') ?? '');
    const submitTime = f.dateTime('submit_time');
    const duration = runTime(f, hasDuration && (row.values.get('duration') ?? '').trim() !== '');
    const tenant = f.optionalText('vc');
    if (!f.ok || !ids.claim(id, row.line, 'job_id')) continue;
    const job: TraceJob = { id, submitTime, gpus, duration, labels: extraLabels(row, MAPPED) };
    if (tenant !== undefined) job.tenant = tenant;
    parsed.push({ line: row.line, job });
  }
  return buildTrace(traceNameOf(fileName), 'helios', fileName, parsed, issues.list());
};

const gpuCount = (f: FieldReader, raw: string): number => {
  if (parseDecimal(raw) !== 0) return f.positiveInteger('gpu_num');
  f.fail('gpu_num', 'CPU-only job left out (GPU jobs need gpu_num ≥ 1)', raw);
  return Number.NaN;
};

const runTime = (f: FieldReader, fromDurationColumn: boolean): number => {
  if (fromDurationColumn) return f.positiveNumber('duration');
  const start = f.dateTime('start_time');
  const end = f.dateTime('end_time');
  if (Number.isFinite(start) && Number.isFinite(end) && !(end > start)) {
    f.fail(
      'end_time',
      'expected a time after start_time (the job must have run)',
      f.optionalText('end_time'),
    );
  }
  return end - start;
};
