import { extraLabels } from './csv.ts';
import { parseKeyedCsv } from './keyed-csv.ts';
import { normaliseModelName } from './model-names.ts';
import { type PolluxApplicationCurves, polluxIterations } from './pollux-work.ts';
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
 * With the applications' training curves (`curves`, see `readTrace`), each job's work is the steps at its batch
 * size to the artifact's completion (`polluxIterations`); a row whose application has no curves is an issue.
 */
export const parsePollux = (
  text: string,
  fileName: string,
  curves?: ReadonlyMap<string, PolluxApplicationCurves>,
): Trace =>
  parseKeyedCsv(text, fileName, {
    format: 'pollux',
    header: HEADER,
    idColumn: 'name',
    readJob: (f, row) => {
      const submitTime = f.nonNegativeNumber('time');
      const application = f.text('application');
      const gpus = f.positiveInteger('num_replicas');
      const batchSize = f.positiveInteger('batch_size');
      const labels = { ...extraLabels(row, MAPPED), application };
      const job = { submitTime, gpus, model: normaliseModelName(application), batchSize, labels };
      if (!curves || !f.ok) return job;
      const app = curves.get(application);
      const steps = app ? polluxIterations(app, batchSize) : undefined;
      if (steps === undefined || !(steps > 0)) {
        f.fail(
          'application',
          `no training curves pollux/${application}/validation-*.csv to derive its work`,
          application,
        );
        return job;
      }
      return { ...job, iterations: Math.max(1, Math.round(steps)) };
    },
  });
