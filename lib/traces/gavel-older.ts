import { findModelProfile } from '../core/catalog/models.ts';
import { buildTrace, type ParsedJob, traceNameOf } from './build.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { parseJobType } from './model-names.ts';
import { assertTraceText, nonBlankLines } from './text.ts';
import { type Trace, TraceFormatError, type TraceJob } from './types.ts';

/**
 * Gavel's older `.trace` layouts (stanford-futuredata/gavel), each named by the code that reads or writes it:
 * - `gavel-msr` — `scheduler/traces/msr/seed=N/*.trace`, read by `scheduler/utils.py` `parse_trace(trace_file,
 *   run_dir)` (called so by `scheduler/scripts/sweeps/run_throughput_vs_latency_msr_trace.py`);
 * - `gavel-steps` — `scheduler/traces/generated/microbenchmark/*`, `generated/msr/msr_N.trace`, read by
 *   `scheduler/emulate_scheduler_with_trace.py` `parse_trace` and written by `scheduler/scripts/generate_trace.py`;
 * - `gavel-poisson` — `scheduler/traces/generated/poisson_lam=*`, written by `scheduler/scripts/generate_trace.py`
 *   `generate_trace` (the version with TensorFlow models that splits each job into 200 steps).
 */
export const GAVEL_MSR_FIELDS = [
  'job_type',
  'command',
  'num_steps_arg',
  'needs_data_dir',
  'total_steps',
  'arrival_time',
  'scale_factor',
] as const;

export const GAVEL_STEPS_FIELDS = [
  'job_type',
  'command',
  'num_steps_arg',
  'total_steps',
  'arrival_time',
  'scale_factor',
] as const;

/** `print(f"{arrival_time}\t{model_name}\t{cmd}\t{duration}\t{num_epochs}")`: seconds per step × steps = run time. */
export const GAVEL_POISSON_FIELDS = ['arrival_time', 'model_name', 'cmd', 'duration', 'num_epochs'] as const;

export type OlderGavelFormat = 'gavel-msr' | 'gavel-steps' | 'gavel-poisson';

export const OLDER_GAVEL_LAYOUTS: Record<OlderGavelFormat, readonly string[]> = {
  'gavel-msr': GAVEL_MSR_FIELDS,
  'gavel-steps': GAVEL_STEPS_FIELDS,
  'gavel-poisson': GAVEL_POISSON_FIELDS,
};

type ReadRow = (f: FieldReader, values: readonly string[]) => Omit<TraceJob, 'id'> | undefined;

/** One older Gavel file: a fixed number of tab-separated fields per line, no header. */
export const parseOlderGavel = (text: string, fileName: string, format: OlderGavelFormat): Trace => {
  const fields = OLDER_GAVEL_LAYOUTS[format];
  assertTraceText(text, fileName, `a ${format} trace`);
  const lines = nonBlankLines(text);
  const first = lines[0];
  if (first !== undefined && first.text.split('\t').length !== fields.length) {
    throw new TraceFormatError(
      `${fileName}:${first.line}: not a ${format} trace: expected ${fields.length} tab-separated fields ` +
        `(${fields.join(', ')}), got ${first.text.split('\t').length}`,
    );
  }
  const issues = new IssueLog(fileName);
  const parsed: ParsedJob[] = [];
  const readRow = ROW_READERS[format];
  for (const { line, text: lineText } of lines) {
    const values = lineText.split('\t');
    if (values.length !== fields.length) {
      issues.add(line, undefined, `expected ${fields.length} tab-separated fields, got ${values.length}`);
      continue;
    }
    const f = new FieldReader(issues, line, (name) => values[fields.indexOf(name)]);
    const row = readRow(f, values);
    if (f.ok && row !== undefined) parsed.push({ line, job: { id: `${format}-${line}`, ...row } });
  }
  return buildTrace(traceNameOf(fileName), format, fileName, parsed, issues.list());
};

/** A Gavel job type (`ResNet-50 (batch size 64)` or a bare `LM`) as model and per-worker batch. */
const jobTypeOf = (f: FieldReader): ReturnType<typeof parseJobType> => {
  const text = f.text('job_type');
  const jobType = parseJobType(text);
  if (text !== '' && jobType === undefined)
    f.fail('job_type', 'expected a model name, optionally with "(batch size N)"', text);
  return jobType;
};

/**
 * Both step layouts keep `total_steps` as `referenceSteps`: their readers hand it to Gavel's `Job` as the work
 * (`duration=None`), so a job's run time is its steps ÷ the throughput of the type it runs on, the rule of
 * today's Gavel import (lib/sim/workload.ts turns the steps into the run time on the reference type).
 */
const stepsJob = (f: FieldReader, values: readonly string[]): Omit<TraceJob, 'id'> | undefined => {
  const jobType = jobTypeOf(f);
  const referenceSteps = f.positiveInteger('total_steps');
  // Gavel's MSR reader skips rows with scale factor 0 (`if int(scale_factor) == 0: continue`); here they are issues.
  const gpus = f.positiveInteger('scale_factor');
  const submitTime = f.nonNegativeNumber('arrival_time');
  if (jobType === undefined) return undefined;
  return {
    submitTime,
    gpus,
    referenceSteps,
    model: jobType.model,
    // Gavel's job types name the batch of one worker; a Tessera job's batch is global.
    ...(jobType.batchSize !== undefined ? { batchSize: jobType.batchSize * gpus } : {}),
    labels: { jobType: (values[0] ?? '').trim(), arrival_time: f.optionalText('arrival_time') ?? '' },
  };
};

const msrJob: ReadRow = (f, values) => {
  const needsDataDir = f.optionalText('needs_data_dir');
  if (needsDataDir !== '0' && needsDataDir !== '1') f.fail('needs_data_dir', 'expected 0 or 1', needsDataDir);
  return stepsJob(f, values);
};

/**
 * The poisson files' jobs are single-GPU TensorFlow models (`vgg16`, `nmt`, `inception3`, `vae`, `resnet50`,
 * `lm_large`): run time = seconds per step × steps. A model outside the catalog keeps its name in
 * `labels.jobType` and gets no model, so the simulator assigns one as it does for Philly rows.
 */
const poissonJob: ReadRow = (f) => {
  const submitTime = f.nonNegativeNumber('arrival_time');
  const name = f.text('model_name');
  const stepSeconds = f.positiveNumber('duration');
  const steps = f.positiveInteger('num_epochs');
  const profile = name === '' ? undefined : findModelProfile(name);
  return {
    submitTime,
    gpus: 1,
    duration: stepSeconds * steps,
    ...(profile !== undefined ? { model: profile.id } : {}),
    labels: { jobType: name, arrival_time: f.optionalText('arrival_time') ?? '' },
  };
};

const ROW_READERS: Record<OlderGavelFormat, ReadRow> = {
  'gavel-msr': msrJob,
  'gavel-steps': stepsJob,
  'gavel-poisson': poissonJob,
};
