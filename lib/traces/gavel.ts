import { buildTrace, type ParsedJob, traceNameOf } from './build.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { parseJobType } from './model-names.ts';
import { assertTraceText, nonBlankLines } from './text.ts';
import { type Trace, TraceFormatError, type TraceJob } from './types.ts';

/** Field order of Gavel's `scheduler/utils.py` `parse_trace` (stanford-futuredata/gavel). */
export const GAVEL_FIELDS = [
  'job_type',
  'command',
  'working_directory',
  'num_steps_arg',
  'needs_data_dir',
  'total_steps',
  'scale_factor',
  'priority_weight',
  'SLO',
  'arrival_time',
] as const;

/** Field order of Shockwave's `scheduler/utils.py` `parse_trace` (uw-mad-dash/shockwave): adds `mode` and `duration`. */
export const SHOCKWAVE_FIELDS = [
  'job_type',
  'command',
  'working_directory',
  'num_steps_arg',
  'needs_data_dir',
  'total_steps',
  'scale_factor',
  'mode',
  'priority_weight',
  'SLO',
  'duration',
  'arrival_time',
] as const;

type Variant = 'gavel' | 'shockwave';

const LAYOUT: Record<Variant, { fields: readonly string[]; what: string; other: Variant }> = {
  gavel: { fields: GAVEL_FIELDS, what: 'a Gavel trace', other: 'shockwave' },
  shockwave: { fields: SHOCKWAVE_FIELDS, what: 'a Shockwave trace', other: 'gavel' },
};

/** Gavel `.trace` files: one job per line, 10 tab-separated fields, no header. */
export const parseGavel = (text: string, fileName: string): Trace => parseTabTrace(text, fileName, 'gavel');

/** Shockwave `.trace` files: Gavel's fields plus `mode` and `duration` (seconds), 12 in all. */
export const parseShockwave = (text: string, fileName: string): Trace =>
  parseTabTrace(text, fileName, 'shockwave');

const parseTabTrace = (text: string, fileName: string, variant: Variant): Trace => {
  const layout = LAYOUT[variant];
  assertTraceText(text, fileName, layout.what);
  const lines = nonBlankLines(text);
  const first = lines[0];
  const width = layout.fields.length;
  if (first !== undefined && first.text.split('\t').length !== width) {
    const count = first.text.split('\t').length;
    const hint =
      count === LAYOUT[layout.other].fields.length
        ? ` (${count} fields is the ${layout.other} layout; use that format)`
        : '';
    throw new TraceFormatError(
      `${fileName}:${first.line}: not ${layout.what}: expected ${width} tab-separated fields ` +
        `(${layout.fields.join(', ')}), got ${count}${hint}`,
    );
  }
  const issues = new IssueLog(fileName);
  const parsed: ParsedJob[] = [];
  for (const { line, text: lineText } of lines) {
    const values = lineText.split('\t');
    if (values.length !== width) {
      issues.add(line, undefined, `expected ${width} tab-separated fields, got ${values.length}`);
      continue;
    }
    const f = new FieldReader(issues, line, (name) => values[layout.fields.indexOf(name)]);
    const jobTypeText = f.text('job_type');
    const jobType = parseJobType(jobTypeText);
    if (jobTypeText !== '' && jobType === undefined)
      f.fail('job_type', 'expected a model name, optionally with "(batch size N)"', jobTypeText);
    const referenceSteps = f.positiveInteger('total_steps');
    const gpus = f.positiveInteger('scale_factor');
    const priority = f.positiveNumber('priority_weight');
    const slo = f.number('SLO');
    const submitTime = f.nonNegativeNumber('arrival_time');
    const mode = variant === 'shockwave' ? f.text('mode') : undefined;
    const duration = variant === 'shockwave' ? f.positiveNumber('duration') : undefined;
    if (!f.ok || jobType === undefined) continue;
    const labels: Record<string, string> = {
      jobType: jobTypeText,
      arrival_time: (values.at(-1) ?? '').trim(),
    };
    // Gavel writes -1 for "no SLO"; a positive SLO is a multiple of the job's isolated run time, not a deadline.
    if (slo > 0) labels.slo = String(slo);
    if (mode !== undefined) labels.mode = mode;
    const job: TraceJob = {
      id: `${variant}-${line}`,
      submitTime,
      gpus,
      referenceSteps,
      priority,
      model: jobType.model,
      // Gavel's job types name the batch of one worker; a Tessera job's batch is global.
      ...(jobType.batchSize !== undefined ? { batchSize: jobType.batchSize * gpus } : {}),
      labels,
    };
    // Shockwave's steps come from its own throughput table (its Recommendation steps are ~7× Gavel's), so its
    // recorded duration, not the steps, says how much work the job is.
    if (duration !== undefined) job.duration = duration;
    parsed.push({ line, job });
  }
  return buildTrace(traceNameOf(fileName), variant, fileName, parsed, issues.list());
};
