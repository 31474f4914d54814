import { extraLabels } from './csv.ts';
import { parseKeyedCsv } from './keyed-csv.ts';
import { normaliseModelName } from './model-names.ts';
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
export const parseTiresias = (text: string, fileName: string): Trace =>
  parseKeyedCsv(text, fileName, {
    format: 'tiresias',
    header: HEADER,
    idColumn: 'job_id',
    readJob: (f, row) => {
      const gpus = f.positiveInteger('num_gpu');
      const submitTime = f.nonNegativeNumber('submit_time');
      const duration = f.positiveNumber('duration');
      const iterations = f.optionalPositiveInteger('iterations');
      const modelName = f.optionalText('model_name');
      const job: Omit<TraceJob, 'id'> = { submitTime, gpus, duration, labels: extraLabels(row, MAPPED) };
      if (iterations !== undefined) job.iterations = iterations;
      if (modelName !== undefined) job.model = normaliseModelName(modelName);
      return job;
    },
  });
