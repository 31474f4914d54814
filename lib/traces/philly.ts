import { buildTrace, type ParsedJob, traceNameOf } from './build.ts';
import { extraLabels, readHeaderedCsv } from './csv.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { assertTraceText } from './text.ts';
import type { Trace } from './types.ts';

const HEADER = {
  what: 'a Philly job list',
  required: ['timestamp', 'duration', 'num_gpus'],
  example: 'timestamp,duration,num_gpus,gpu_time,cluster',
} as const;

/**
 * Philly-derived job list (`timestamp,duration,num_gpus,gpu_time,cluster`, as processed by
 * petuum/adaptdl). Timestamps are read as UTC. The file is not sorted by time; jobs are sorted by
 * submit time, ties by line. The virtual cluster becomes the tenant. Ids are `philly-<line>`.
 */
export const parsePhilly = (text: string, fileName: string): Trace => {
  assertTraceText(text, fileName, HEADER.what);
  const issues = new IssueLog(fileName);
  const { rows } = readHeaderedCsv(text, fileName, HEADER, issues);
  const parsed: ParsedJob[] = [];
  for (const row of rows) {
    const f = new FieldReader(issues, row.line, (c) => row.values.get(c));
    const submitTime = f.dateTime('timestamp');
    const duration = f.positiveNumber('duration');
    const gpus = f.positiveInteger('num_gpus');
    const tenant = f.optionalText('cluster');
    if (!f.ok) continue;
    const labels = extraLabels(row, ['duration', 'num_gpus', 'cluster', 'gpu_time']);
    parsed.push({
      line: row.line,
      job: { id: `philly-${row.line}`, submitTime, gpus, duration, ...(tenant && { tenant }), labels },
    });
  }
  return buildTrace(traceNameOf(fileName), 'philly', fileName, parsed, issues.list());
};
