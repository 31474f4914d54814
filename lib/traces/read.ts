import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { resolveDataDir } from '../data/data-dir.ts';
import { loadAllPolluxCurves } from '../data/pollux-curves.ts';
import { detectFormat } from './detect.ts';
import { GRAMMAR_HELP } from './generators/builtin.ts';
import { parseTrace } from './parse.ts';
import { parseTraceFormat, type Trace, TraceFormatError } from './types.ts';

export interface ReadTraceOptions {
  /** Force a format (a `TRACE_FORMATS` value); default: detected. */
  format?: string;
  /** Where Pollux workloads' training curves are (`<dataDir>/pollux/<app>/`); default `resolveDataDir()`. */
  dataDir?: string;
}

const PAI_JOB = 'pai_job_table';
const PAI_TASK = 'pai_task_table';

/**
 * Reads and parses a trace file. An Alibaba PAI trace may be given as its directory or as either
 * table; the other table is the file beside it with `pai_job_table` ↔ `pai_task_table` swapped.
 */
export const readTrace = (path: string, options: ReadTraceOptions = {}): Trace => {
  const forced = options.format === undefined ? undefined : parseTraceFormat(options.format);
  // Not a file, nor a builtin (the caller tried those first): say both, instead of a bare ENOENT from stat.
  if (!existsSync(path)) throw new TraceFormatError(`no trace file ${path}; ${GRAMMAR_HELP}`);
  if (statSync(path).isDirectory()) {
    if (forced !== undefined && forced !== 'alibaba-pai')
      throw new TraceFormatError(
        `${path} is a directory; only an alibaba-pai trace is read from a directory`,
      );
    return readPaiDirectory(path);
  }
  const text = readFileSync(path, 'utf8');
  const format = forced ?? detectFormat(text, path);
  if (format === 'pollux') {
    const polluxCurves = loadAllPolluxCurves(options.dataDir ?? resolveDataDir());
    return parseTrace(text, path, { format, polluxCurves });
  }
  if (format !== 'alibaba-pai') return parseTrace(text, path, { format });
  const name = basename(path);
  if (name.includes(PAI_TASK)) {
    const jobPath = join(dirname(path), name.replace(PAI_TASK, PAI_JOB));
    return readPaiTables(jobPath, path);
  }
  if (!name.includes(PAI_JOB)) {
    throw new TraceFormatError(
      `${path}: a PAI trace is found by its file names: name the tables ${PAI_JOB}.csv and ${PAI_TASK}.csv, side by side`,
    );
  }
  return readPaiTables(path, join(dirname(path), name.replace(PAI_JOB, PAI_TASK)), text);
};

const readPaiDirectory = (dir: string): Trace => {
  const jobPath = join(dir, `${PAI_JOB}.csv`);
  if (!existsSync(jobPath))
    throw new TraceFormatError(
      `${dir} is a directory without ${PAI_JOB}.csv; give a trace file or a PAI trace directory`,
    );
  return readPaiTables(jobPath, join(dir, `${PAI_TASK}.csv`));
};

const readPaiTables = (jobPath: string, taskPath: string, jobText?: string): Trace => {
  for (const p of [jobPath, taskPath]) {
    if (!existsSync(p))
      throw new TraceFormatError(`${p}: missing; a PAI trace needs both ${PAI_JOB}.csv and ${PAI_TASK}.csv`);
  }
  const text = jobText ?? readFileSync(jobPath, 'utf8');
  const taskTable = { text: readFileSync(taskPath, 'utf8'), fileName: taskPath };
  return parseTrace(text, jobPath, { format: 'alibaba-pai', taskTable });
};
