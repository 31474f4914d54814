import { parseAlibabaPai } from './alibaba-pai.ts';
import { detectFormat } from './detect.ts';
import { parseGavel, parseShockwave } from './gavel.ts';
import { parseOlderGavel } from './gavel-older.ts';
import { parseHelios } from './helios.ts';
import { parseJobsFile } from './jobs-file.ts';
import { parsePhilly } from './philly.ts';
import { parsePollux } from './pollux.ts';
import type { PolluxApplicationCurves } from './pollux-work.ts';
import { parseTiresias } from './tiresias.ts';
import { parseTraceFormat, type Trace, TraceFormatError, type TraceSource } from './types.ts';

export interface ParseTraceOptions {
  /** Force a format (a `TRACE_FORMATS` value); default: detected from the name and first line. */
  format?: string;
  /** Alibaba PAI only: the `pai_task_table.csv` to join with the job table given as `text`. */
  taskTable?: TraceSource;
  /** Pollux only: the applications' training curves, from which each job's work is derived. */
  polluxCurves?: ReadonlyMap<string, PolluxApplicationCurves>;
}

/** Parses a trace file's text. Pure: the caller reads the file (see `readTrace`). */
export const parseTrace = (text: string, fileName: string, options: ParseTraceOptions = {}): Trace => {
  const format =
    options.format === undefined ? detectFormat(text, fileName) : parseTraceFormat(options.format);
  switch (format) {
    case 'philly':
      return parsePhilly(text, fileName);
    case 'tiresias':
      return parseTiresias(text, fileName);
    case 'pollux':
      return parsePollux(text, fileName, options.polluxCurves);
    case 'gavel':
      return parseGavel(text, fileName);
    case 'shockwave':
      return parseShockwave(text, fileName);
    case 'gavel-msr':
    case 'gavel-steps':
    case 'gavel-poisson':
      return parseOlderGavel(text, fileName, format);
    case 'helios':
      return parseHelios(text, fileName);
    case 'jobs':
      return parseJobsFile(text, fileName);
    case 'alibaba-pai':
      if (options.taskTable === undefined)
        throw new TraceFormatError(
          `${fileName}: an Alibaba PAI trace is two files; give pai_job_table.csv with pai_task_table.csv beside it, or their directory`,
        );
      return parseAlibabaPai({ text, fileName }, options.taskTable);
  }
};
