import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { declaredProfileSchema } from '../core/catalog/user-models.ts';
import { assertTraceText } from './text.ts';
import { type Trace, TraceFormatError, type TraceIssue, type TraceJob } from './types.ts';

/**
 * A jobs file (YAML or JSON): a trace written by hand, one entry per job, so users can put their own models —
 * names outside the catalog, with a declared profile or none — in front of every policy before deploying:
 *
 *   jobs:
 *     - { id: a, submitTime: 0, model: llama-3-8b, batchSize: 32, gpus: 4, duration: 7200 }
 *     - model: my-net
 *       profile: { parameters: 3.0e8, flopsPerSample: 2.0e12, activationBytesPerSample: 4.0e8 }
 *       actualProfile: { parameters: 3.0e8, flopsPerSample: 1.2e12, activationBytesPerSample: 4.0e8 }
 *       submitTime: 60
 *       batchSize: 64
 *       gpus: 2
 *       iterations: 20000
 *
 * `profile` is what the scheduler is told (as in a job spec); `actualProfile`, if given, is how the model really
 * behaves in the simulator's executor (default: the profile, or the conservative estimate without one).
 * See docs/traces.md "Jobs files".
 */

const positive = z.number('must be a number').positive('must be greater than 0');

const entrySchema = z
  .strictObject({
    id: z.string().min(1, 'must not be empty').optional(),
    submitTime: z.number('must be a number').nonnegative('must not be negative'),
    model: z.string().min(1, 'must not be empty'),
    profile: declaredProfileSchema.optional(),
    actualProfile: declaredProfileSchema.optional(),
    batchSize: z.int('must be an integer').positive('must be at least 1').optional(),
    gpus: z.int('must be an integer').positive('must be at least 1'),
    duration: positive.optional(),
    iterations: positive.optional(),
    gpuType: z.string().min(1).optional(),
    tenant: z.string().min(1).optional(),
    priority: z.number('must be a number').optional(),
    deadline: z.number('must be a number').optional(),
  })
  .superRefine((e, ctx) => {
    if ((e.duration === undefined) === (e.iterations === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['duration'],
        message: 'give exactly one of duration and iterations',
      });
  });

export const isJobsFileName = (fileName: string): boolean => /\.(ya?ml|json)$/i.test(fileName);

/** Parses a jobs file; an entry with problems is left out with one issue per problem (file, line, field). */
export const parseJobsFile = (text: string, fileName: string): Trace => {
  assertTraceText(text, fileName, 'a jobs file (YAML or JSON)');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length > 0)
    throw new TraceFormatError(`${fileName}: not valid YAML/JSON: ${doc.errors[0]!.message}`);
  const root = doc.contents;
  const list = isMap(root) ? root.get('jobs', true) : root;
  if (!isSeq(list))
    throw new TraceFormatError(`${fileName}: a jobs file is a list of jobs, or a map with a "jobs" list`);
  const jobs: TraceJob[] = [];
  const issues: TraceIssue[] = [];
  list.items.forEach((node, index) => {
    const at = node as { range?: readonly number[]; toJSON(): unknown };
    const line = lines.linePos(at.range?.[0] ?? 0).line;
    const parsed = entrySchema.safeParse(at.toJSON());
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push({
          file: fileName,
          line,
          field: issue.path.join('.') || `jobs[${index}]`,
          message: issue.message,
        });
      return;
    }
    const e = parsed.data;
    jobs.push({
      id: e.id ?? `job-${index + 1}`,
      submitTime: e.submitTime,
      gpus: e.gpus,
      model: e.model,
      ...(e.profile ? { profile: e.profile } : {}),
      ...(e.actualProfile ? { actualProfile: e.actualProfile } : {}),
      ...(e.batchSize !== undefined ? { batchSize: e.batchSize } : {}),
      ...(e.duration !== undefined ? { duration: e.duration } : {}),
      ...(e.iterations !== undefined ? { iterations: e.iterations } : {}),
      ...(e.gpuType ? { gpuType: e.gpuType } : {}),
      ...(e.tenant ? { tenant: e.tenant } : {}),
      ...(e.priority !== undefined ? { priority: e.priority } : {}),
      ...(e.deadline !== undefined ? { deadline: e.deadline } : {}),
    });
  });
  const duplicate = jobs.find((j, i) => jobs.findIndex((k) => k.id === j.id) !== i);
  if (duplicate) throw new TraceFormatError(`${fileName}: job id "${duplicate.id}" appears twice`);
  const first = Math.min(...jobs.map((j) => j.submitTime), Number.POSITIVE_INFINITY);
  const rebase = (j: TraceJob): TraceJob => ({
    ...j,
    submitTime: j.submitTime - first,
    ...(j.deadline !== undefined ? { deadline: j.deadline - first } : {}),
  });
  const rebased = Number.isFinite(first) ? jobs.map(rebase) : jobs;
  return { name: fileName, format: 'jobs', source: fileName, jobs: rebased, issues };
};
