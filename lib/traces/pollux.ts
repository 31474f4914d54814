import { buildTrace, IdRegistry, type ParsedJob, traceNameOf } from './build.ts';
import { extraLabels, readHeaderedCsv } from './csv.ts';
import { FieldReader } from './fields.ts';
import { IssueLog } from './issues.ts';
import { normaliseModelName } from './model-names.ts';
import { assertTraceText } from './text.ts';
import type { Trace } from './types.ts';

const HEADER = {
  what: 'a Pollux/Sia workload',
  required: ['name', 'time', 'application', 'num_replicas', 'batch_size'],
  example: 'name,time,application,num_replicas,batch_size',
} as const;

const MAPPED = ['name', 'application', 'num_replicas', 'batch_size'];

/**
 * Pollux/Sia workloads (`name,time,application,num_replicas,batch_size`; petuum/adaptdl
 * `simulator/workloads*`). Jobs run to convergence, so there is no duration. The application
 * (`cifar10`, `imagenet`, `bert`, …) is the model id: the shared Pollux step-time tables are keyed by it.
 */
export const parsePollux = (text: string, fileName: string): Trace => {
  assertTraceText(text, fileName, HEADER.what);
  const issues = new IssueLog(fileName);
  const { rows } = readHeaderedCsv(text, fileName, HEADER, issues);
  const ids = new IdRegistry(issues);
  const parsed: ParsedJob[] = [];
  for (const row of rows) {
    const f = new FieldReader(issues, row.line, (c) => row.values.get(c));
    const id = f.text('name');
    const submitTime = f.nonNegativeNumber('time');
    const application = f.text('application');
    const gpus = f.positiveInteger('num_replicas');
    const batchSize = f.positiveInteger('batch_size');
    if (!f.ok || !ids.claim(id, row.line, 'name')) continue;
    const labels = { ...extraLabels(row, MAPPED), application };
    parsed.push({
      line: row.line,
      job: { id, submitTime, gpus, model: normaliseModelName(application), batchSize, labels },
    });
  }
  return buildTrace(traceNameOf(fileName), 'pollux', fileName, parsed, issues.list());
};
