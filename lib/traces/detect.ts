import { PAI_STATUSES } from './alibaba-pai.ts';
import { GAVEL_FIELDS, SHOCKWAVE_FIELDS } from './gavel.ts';
import { OLDER_GAVEL_LAYOUTS, type OlderGavelFormat } from './gavel-older.ts';
import { isJobsFileName } from './jobs-file.ts';
import { assertTraceText, firstLinePreview, nonBlankLines } from './text.ts';
import { TRACE_FORMATS, type TraceFormat, TraceFormatError } from './types.ts';

const hasAll = (columns: readonly string[], wanted: readonly string[]): boolean =>
  wanted.every((c) => columns.includes(c));

/**
 * Tells a trace's format from its file name and first line: PAI table names; tab-separated lines
 * by field count (Gavel 10, Shockwave 12; Gavel's older layouts 7, 6, 5); CSV headers by their columns; headerless PAI job rows
 * by shape. Throws a `TraceFormatError` naming the known formats when nothing matches.
 */
export const detectFormat = (text: string, fileName: string): TraceFormat => {
  assertTraceText(text, fileName, 'a trace file');
  const base = (fileName.split(/[\\/]/).pop() ?? fileName).toLowerCase();
  if (base.includes('pai_job_table') || base.includes('pai_task_table')) return 'alibaba-pai';
  if (isJobsFileName(base)) return 'jobs';
  const first = nonBlankLines(text.slice(0, 64 * 1024))[0]?.text ?? '';
  if (first.includes('\t')) {
    const count = first.split('\t').length;
    if (count === GAVEL_FIELDS.length) return 'gavel';
    if (count === SHOCKWAVE_FIELDS.length) return 'shockwave';
    const older = (Object.keys(OLDER_GAVEL_LAYOUTS) as OlderGavelFormat[]).find(
      (f) => OLDER_GAVEL_LAYOUTS[f].length === count,
    );
    if (older !== undefined) return older;
  } else {
    const columns = first.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
    if (hasAll(columns, ['timestamp', 'duration', 'num_gpus'])) return 'philly';
    if (hasAll(columns, ['name', 'time', 'application', 'num_replicas'])) return 'pollux';
    if (hasAll(columns, ['job_id', 'num_gpu', 'submit_time'])) return 'tiresias';
    if (hasAll(columns, ['job_id', 'gpu_num', 'submit_time'])) return 'helios';
    if (columns.length === 6 && (PAI_STATUSES as readonly string[]).includes(columns[3] ?? ''))
      return 'alibaba-pai';
  }
  throw new TraceFormatError(
    `${fileName}: cannot tell the trace format from its name or first line "${firstLinePreview(text)}"; ` +
      `known formats: ${TRACE_FORMATS.join(', ')} (pass one with --format)`,
  );
};
