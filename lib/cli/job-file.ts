/**
 * What `tessera submit` reads (pure: text in, job documents out). A file (YAML or JSON) holds one job, a list of
 * jobs, `{ jobs: [...] }`, or a sweep: a job whose `sweep` field maps fields to lists of values, expanded to one
 * job per combination (docs/job-spec.md). `--set key=value` overrides a field of every job first (dotted keys
 * reach into objects: `env.LR=0.1`). Every job is checked with the job-spec schema; issues name the job and field.
 * A `workdir` naming a local directory is checked as if already uploaded (bring-workdirs.ts uploads it next).
 */
import { parse as parseYaml } from 'yaml';
import { type JobSpecIssue, validateJobSpec } from '../protocol/job-spec.ts';

export interface JobFileIssue extends JobSpecIssue {
  /** Which job of the file: `jobs[2]`, `sweep[batchSize=64]`, or `(file)`. */
  readonly job: string;
}

export type JobFileResult =
  | { readonly ok: true; readonly jobs: readonly { label: string; document: Record<string, unknown> }[] }
  | { readonly ok: false; readonly issues: readonly JobFileIssue[] };

const MAX_SWEEP_JOBS = 1000;

type Doc = Record<string, unknown>;
const isObject = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Fields whose values are always strings (environment variables, labels). */
const STRING_MAPS = new Set(['env', 'labels']);

/**
 * Parses `key=value`; the value is read as YAML (`gpus=4` is a number, `gpuTypes=[A100]` a list), except inside
 * `env` and `labels`, whose values are strings (`env.SEED=7` sets "7").
 */
export const parseSetting = (text: string): { path: string[]; value: unknown } => {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`--set ${text}: expected key=value`);
  const path = text.slice(0, eq).trim().split('.');
  const raw = text.slice(eq + 1);
  return { path, value: path.length > 1 && STRING_MAPS.has(path[0]!) ? raw : (parseYaml(raw) ?? '') };
};

const withSetting = (doc: Doc, path: readonly string[], value: unknown): Doc => {
  const [head, ...rest] = path;
  if (head === undefined) return doc;
  if (rest.length === 0) return { ...doc, [head]: value };
  const inner = isObject(doc[head]) ? (doc[head] as Doc) : {};
  return { ...doc, [head]: withSetting(inner, rest, value) };
};

/** The jobs a sweep expands to: the cartesian product of its fields' values, in file order. */
export const expandSweep = (doc: Doc): { label: string; document: Doc }[] | JobFileIssue[] => {
  const { sweep, ...base } = doc;
  if (!isObject(sweep) || Object.keys(sweep).length === 0)
    return [{ job: 'sweep', field: 'sweep', rule: 'must map field names to lists of values' }];
  const axes = Object.entries(sweep);
  const bad = axes.filter(([, values]) => !Array.isArray(values) || values.length === 0);
  if (bad.length > 0)
    return bad.map(([field]) => ({
      job: 'sweep',
      field: `sweep.${field}`,
      rule: 'must be a non-empty list',
    }));
  const total = axes.reduce((n, [, values]) => n * (values as unknown[]).length, 1);
  if (total > MAX_SWEEP_JOBS)
    return [{ job: 'sweep', field: 'sweep', rule: `expands to ${total} jobs; at most ${MAX_SWEEP_JOBS}` }];
  let combos: { label: string[]; document: Doc }[] = [{ label: [], document: base }];
  for (const [field, values] of axes) {
    combos = combos.flatMap((c) =>
      (values as unknown[]).map((value) => ({
        label: [...c.label, `${field}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`],
        document: withSetting(c.document, field.split('.'), value),
      })),
    );
  }
  return combos.map(({ label, document }) => {
    const suffix = label.join(',');
    const slug = suffix.replace(/[^A-Za-z0-9._:-]+/g, '-');
    return {
      label: `sweep[${suffix}]`,
      document: {
        ...document,
        ...(typeof base.name === 'string' ? { name: `${base.name}-${slug}`.slice(0, 128) } : {}),
        // Each job of a sweep needs its own idempotency key: the base token plus the combination.
        ...(typeof base.clientToken === 'string'
          ? { clientToken: `${base.clientToken}-${slug}`.slice(0, 128) }
          : {}),
      },
    };
  });
};

/** Stands in for the URI a local `workdir` will get, so the rest of the document is checked before any upload. */
const UPLOADED_PLACEHOLDER = `s3://bucket-placeholder/workdirs/${'0'.repeat(64)}.tar.gz`;

const asUploaded = (doc: Doc): Doc =>
  typeof doc.workdir === 'string' && !doc.workdir.startsWith('s3://')
    ? { ...doc, workdir: UPLOADED_PLACEHOLDER }
    : doc;

/** The jobs of a file's text, each validated; `settings` are `--set key=value` strings. */
export const readJobFile = (text: string, settings: readonly string[] = []): JobFileResult => {
  let parsed: unknown;
  try {
    parsed = parseYaml(text); // YAML is a superset of JSON: one parser for both
  } catch (error) {
    return {
      ok: false,
      issues: [
        {
          job: '(file)',
          field: '(document)',
          // The parser's first line names the problem, line and column; the code frame after it is dropped.
          rule: `must be YAML or JSON (${(error as Error).message.split('\n')[0]?.replace(/:$/, '')})`,
        },
      ],
    };
  }
  let sets: { path: string[]; value: unknown }[];
  try {
    sets = settings.map(parseSetting);
  } catch (error) {
    return { ok: false, issues: [{ job: '(command line)', field: '--set', rule: (error as Error).message }] };
  }
  if (parsed === null || parsed === undefined)
    return { ok: false, issues: [{ job: '(file)', field: '(document)', rule: 'is empty: no job in it' }] };
  const listed = Array.isArray(parsed)
    ? parsed.map((doc, i) => ({ label: `jobs[${i}]`, doc }))
    : isObject(parsed) && Array.isArray(parsed.jobs)
      ? (parsed.jobs as unknown[]).map((doc, i) => ({ label: `jobs[${i}]`, doc }))
      : [{ label: 'job', doc: parsed }];
  if (listed.length === 0)
    return { ok: false, issues: [{ job: '(file)', field: '(document)', rule: 'holds no job' }] };
  const issues: JobFileIssue[] = [];
  const jobs: { label: string; document: Doc }[] = [];
  for (const { label, doc } of listed) {
    if (!isObject(doc)) {
      issues.push({ job: label, field: '(document)', rule: 'must be an object with the job spec fields' });
      continue;
    }
    const set = sets.reduce((d, s) => withSetting(d, s.path, s.value), doc);
    const expanded = 'sweep' in set ? expandSweep(set) : [{ label, document: set }];
    for (const entry of expanded) {
      if ('rule' in entry) {
        issues.push({ ...entry, job: label === 'job' ? entry.job : `${label}.${entry.job}` });
        continue;
      }
      const name = label === 'job' ? entry.label : label === entry.label ? label : `${label}.${entry.label}`;
      const check = validateJobSpec(asUploaded(entry.document));
      if (check.ok) jobs.push({ label: name, document: entry.document });
      else issues.push(...check.issues.map((i) => ({ ...i, job: name })));
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, jobs };
};
