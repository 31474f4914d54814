import { buildTrace, IdRegistry, type ParsedJob, traceNameOf } from './build.ts';
import { extraLabels, readHeaderedCsv } from './csv.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { normaliseModelName } from './model-names.ts';
import { assertTraceText } from './text.ts';
import type { Trace, TraceJob } from './types.ts';

const HEADER = {
  what: 'a Tiresias trace',
  required: ['job_id', 'num_gpu', 'submit_time', 'duration'],
  example: 'job_id,num_gpu,submit_time,iterations,model_name,duration,interval',
} as const;

const MAPPED = ['job_id', 'num_gpu', 'iterations', 'model_name', 'duration'];

/**
 * Tiresias simulator traces (`job_id,num_gpu,submit_time,iterations,model_name,duration,interval`;
 * submit time and duration in seconds). Columns are found by name, so the older `tf_job.csv` layout
 * reads too; columns without a `TraceJob` field (interval, model_size, …) are kept as labels.
 */
export const parseTiresias = (text: string, fileName: string): Trace => {
  assertTraceText(text, fileName, HEADER.what);
  const issues = new IssueLog(fileName);
  const { rows } = readHeaderedCsv(text, fileName, HEADER, issues);
  const ids = new IdRegistry(issues);
  const parsed: ParsedJob[] = [];
  for (const row of rows) {
    const f = new FieldReader(issues, row.line, (c) => row.values.get(c));
    const id = f.text('job_id');
    const gpus = f.positiveInteger('num_gpu');
    const submitTime = f.nonNegativeNumber('submit_time');
    const duration = f.positiveNumber('duration');
    const iterations = f.optionalPositiveInteger('iterations');
    const modelName = f.optionalText('model_name');
    if (!f.ok || !ids.claim(id, row.line, 'job_id')) continue;
    const job: TraceJob = { id, submitTime, gpus, duration, labels: extraLabels(row, MAPPED) };
    if (iterations !== undefined) job.iterations = iterations;
    if (modelName !== undefined) job.model = normaliseModelName(modelName);
    parsed.push({ line: row.line, job });
  }
  return buildTrace(traceNameOf(fileName), 'tiresias', fileName, parsed, issues.list());
};
