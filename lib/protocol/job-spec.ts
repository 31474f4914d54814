/**
 * The job spec users submit (API body, SQS message, `tessera submit` file): the one zod schema shared by
 * every entry point, and its conversion to the core `JobSpec`. Every error names the field and the rule.
 * Reference: docs/job-spec.md.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { findGpuType, findModelProfile, knownGpuTypeIds } from '../core/catalog/index.ts';
import { declaredProfileSchema, USER_MODEL_NAME, userModelId } from '../core/catalog/user-models.ts';
import type { JobSpec } from '../core/model/job.ts';
import { imageSchema, setupSchema, workdirUriSchema } from './code-source.ts';
import { typeIssueRule, unknownFieldRule, valueAt } from './type-issue.ts';
import { MANAGED_ENV_NAMES } from './worker-protocol.ts';

/** Largest accepted document (UTF-8 bytes): far above any real spec, far below DynamoDB's 400 KB item limit. */
export const MAX_JOB_SPEC_BYTES = 64 * 1024;
export const MAX_GPUS_PER_JOB = 1024;
/**
 * Largest launch settings: `command`, `env`, `setup`, `image` and `workdir` (UTF-8 bytes of their JSON). A
 * host's desired state (one DynamoDB item, 400 KB) carries the launch settings of every job placed on it — up to 16 on an 8-GPU host with packing — so a job
 * whose settings could not fit there is refused at submit instead of stalling placement later.
 */
export const MAX_LAUNCH_BYTES = 16 * 1024;
export const CLIENT_TOKEN_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LABEL_KEY = /^[A-Za-z0-9._/-]{1,63}$/;
const managedEnv = new Set<string>(MANAGED_ENV_NAMES);

const gpuTypeId = z.string().transform((name, ctx) => {
  const type = findGpuType(name);
  if (type) return type.id;
  ctx.addIssue({
    code: 'custom',
    message: `unknown GPU type "${name}"; known types: ${knownGpuTypeIds().join(', ')}`,
  });
  return z.NEVER;
});

/** A catalog name becomes its catalog id; any other name is a model outside the catalog (catalog/user-models.ts). */
const modelId = z
  .string()
  .min(1, 'must not be empty')
  .transform((name, ctx) => {
    const profile = findModelProfile(name);
    if (profile) return profile.id;
    if (USER_MODEL_NAME.test(name)) return name;
    ctx.addIssue({
      code: 'custom',
      message: `"${name}" is not a catalog model, and a model outside the catalog must be named by 1-128 characters of [A-Za-z0-9._/:+-] starting with a letter or digit (docs/job-spec.md)`,
    });
    return z.NEVER;
  });

const positiveInt = (max: number) =>
  z.int('must be an integer').min(1, 'must be at least 1').max(max, `must be at most ${max}`);

const elasticSchema = z
  .strictObject({
    maxP: positiveInt(MAX_GPUS_PER_JOB),
    minGpus: z.int('must be an integer').min(0, 'must not be negative').default(0),
    heterogeneous: z.boolean().default(false),
  })
  .superRefine((elastic, ctx) => {
    if (elastic.minGpus > 2 * elastic.maxP) {
      ctx.addIssue({
        code: 'custom',
        path: ['minGpus'],
        message: `must be at most 2 × maxP (${2 * elastic.maxP}): an elastic job runs on at most two ESTs' worth of GPUs per logical worker`,
      });
    }
  });

const envSchema = z
  .record(z.string(), z.string().max(4096, 'must be at most 4096 characters'))
  .superRefine((env, ctx) => {
    const names = Object.keys(env);
    if (names.length > 64) ctx.addIssue({ code: 'custom', message: 'must have at most 64 variables' });
    for (const name of names) {
      if (!ENV_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'must be a valid environment variable name' });
      } else if (managedEnv.has(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `may not be set: the host agent manages ${MANAGED_ENV_NAMES.join(', ')}`,
        });
      }
    }
  });

const labelsSchema = z
  .record(z.string(), z.string().max(256, 'must be at most 256 characters'))
  .superRefine((labels, ctx) => {
    const keys = Object.keys(labels);
    if (keys.length > 32) ctx.addIssue({ code: 'custom', message: 'must have at most 32 labels' });
    for (const key of keys) {
      if (!LABEL_KEY.test(key))
        ctx.addIssue({ code: 'custom', path: [key], message: 'label keys must match [A-Za-z0-9._/-]{1,63}' });
    }
  });

/** The submitted document. Unknown fields are rejected so that typos do not pass silently. */
export const jobSpecDocumentSchema = z
  .strictObject({
    name: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
    model: modelId,
    profile: declaredProfileSchema,
    batchSize: positiveInt(1_048_576),
    gpus: positiveInt(MAX_GPUS_PER_JOB),
    gpuTypes: z
      .array(gpuTypeId)
      .min(1, 'must list at least one GPU type (omit the field to allow any)')
      .max(16, 'must list at most 16 GPU types')
      .optional(),
    preferredGpuType: gpuTypeId.optional(),
    iterations: positiveInt(1e12),
    priority: z
      .int('must be an integer')
      .min(-1000, 'must be at least -1000')
      .max(1000, 'must be at most 1000'),
    deadline: z.iso.datetime({
      offset: true,
      error: 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z',
    }),
    packable: z.boolean(),
    elastic: elasticSchema,
    labels: labelsSchema,
    command: z
      .array(z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'))
      .min(1, 'must name the program to run')
      .max(256, 'must have at most 256 arguments'),
    env: envSchema,
    image: imageSchema,
    workdir: workdirUriSchema,
    setup: setupSchema,
    clientToken: z.string().regex(CLIENT_TOKEN_PATTERN, 'must be 1-128 characters of [A-Za-z0-9._:-]'),
  })
  .partial({
    profile: true,
    priority: true,
    deadline: true,
    packable: true,
    elastic: true,
    labels: true,
    env: true,
    image: true,
    workdir: true,
    setup: true,
    clientToken: true,
  })
  .superRefine((doc, ctx) => {
    const launchBytes = Buffer.byteLength(JSON.stringify(launchOf(doc)), 'utf8');
    if (launchBytes > MAX_LAUNCH_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: `command and env together must be at most ${MAX_LAUNCH_BYTES} bytes, got ${launchBytes} (setup, image and workdir count too): every job's launch settings must fit in its host's desired state (one DynamoDB item); put large inputs in a file the command reads`,
      });
    }
    if (doc.profile && isCatalogModel(doc.model)) {
      ctx.addIssue({
        code: 'custom',
        path: ['profile'],
        message: `must not be given for the catalog model "${doc.model}": the catalog profiles it; name your own model differently to declare its profile`,
      });
    }
    if (doc.gpuTypes && new Set(doc.gpuTypes).size !== doc.gpuTypes.length) {
      ctx.addIssue({ code: 'custom', path: ['gpuTypes'], message: 'must not list a GPU type twice' });
    }
    if (doc.preferredGpuType && doc.gpuTypes && !doc.gpuTypes.includes(doc.preferredGpuType)) {
      ctx.addIssue({
        code: 'custom',
        path: ['preferredGpuType'],
        message: `must be one of gpuTypes (${doc.gpuTypes.join(', ')})`,
      });
    }
    if (doc.elastic && doc.gpus > 2 * doc.elastic.maxP) {
      ctx.addIssue({
        code: 'custom',
        path: ['gpus'],
        message: `must be at most 2 × elastic.maxP (${2 * doc.elastic.maxP}) for an elastic job`,
      });
    }
  });

export type JobSpecDocument = z.infer<typeof jobSpecDocumentSchema>;

/** Whether a validated document's model is in the catalog (else it is the user's own, with or without a profile). */
export const isCatalogModel = (model: string): boolean => findModelProfile(model)?.id === model;

/** One problem with a submitted document: the field (dotted path, `(document)` for the whole) and the rule. */
export interface JobSpecIssue {
  readonly field: string;
  readonly rule: string;
}

export type JobSpecParseResult =
  | { readonly ok: true; readonly document: JobSpecDocument }
  | { readonly ok: false; readonly issues: readonly JobSpecIssue[] };

export class InvalidJobSpecError extends Error {
  override readonly name = 'InvalidJobSpecError';
  constructor(readonly issues: readonly JobSpecIssue[]) {
    super(`invalid job spec: ${formatJobSpecIssues(issues)}`);
  }
}

export const formatJobSpecIssues = (issues: readonly JobSpecIssue[]): string =>
  issues.map((i) => `${i.field}: ${i.rule}`).join('; ');

const fieldOf = (path: readonly PropertyKey[]): string =>
  path.length === 0 ? '(document)' : path.map((key) => String(key)).join('.');

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Problems a schema would hide: JSON.parse makes `__proto__` an own key that records drop silently, and NUL
 * characters pass every string rule but fail only when the agent spawns the worker.
 */
const rawIssues = (value: unknown): JobSpecIssue[] => {
  const issues: JobSpecIssue[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (typeof node === 'string') {
      if (node.includes('\u0000'))
        issues.push({ field: fieldOf(path), rule: 'must not contain NUL characters' });
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const key of Object.keys(node)) {
      const child = [...path, key];
      if (key.includes('\u0000'))
        issues.push({ field: fieldOf(child), rule: 'keys must not contain NUL characters' });
      if (RESERVED_KEYS.has(key) && (path[0] === 'labels' || path[0] === 'env') && path.length === 1)
        issues.push({ field: fieldOf(child), rule: `"${key}" is a reserved key and may not be used` });
      visit((node as Record<string, unknown>)[key], child);
    }
  };
  visit(value, []);
  return issues;
};

/** Validates an already-parsed value (e.g. a YAML document read by the CLI). */
export const validateJobSpec = (value: unknown): JobSpecParseResult => {
  const raw = rawIssues(value);
  if (raw.length > 0) return { ok: false, issues: raw };
  const parsed = jobSpecDocumentSchema.safeParse(value);
  if (parsed.success) return { ok: true, document: parsed.data };
  const issues = parsed.error.issues.flatMap((issue): JobSpecIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      // One issue per key, a top-level typo with the field it most likely means.
      const known = issue.path.length === 0 ? Object.keys(jobSpecDocumentSchema.shape) : [];
      return ((issue as { keys?: string[] }).keys ?? []).map((key) => ({
        field: fieldOf([...issue.path, key]),
        rule: unknownFieldRule(key, known),
      }));
    }
    if (issue.code === 'invalid_type') {
      const parent = valueAt(value, issue.path.slice(0, -1));
      const key = issue.path.at(-1);
      const present = key === undefined || (typeof parent === 'object' && parent !== null && key in parent);
      return [
        { field: fieldOf(issue.path), rule: typeIssueRule(issue, valueAt(value, issue.path), present) },
      ];
    }
    return [{ field: fieldOf(issue.path), rule: issue.message }];
  });
  return { ok: false, issues };
};

/** Validates JSON text (an API body or SQS message): size first, then syntax, then the schema. */
export const parseJobSpecJson = (text: string): JobSpecParseResult => {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_JOB_SPEC_BYTES) {
    return {
      ok: false,
      issues: [{ field: '(document)', rule: `must be at most ${MAX_JOB_SPEC_BYTES} bytes, got ${bytes}` }],
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      issues: [{ field: '(document)', rule: `must be JSON (${(error as Error).message})` }],
    };
  }
  return validateJobSpec(value);
};

/** How to start the job's workers on a host: not scheduling input, so kept beside the core spec. */
export interface JobLaunch {
  readonly command: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Container image the workers run in (docs/host-agent.md, "Code on the host"). */
  readonly image?: string;
  /** `s3://<bucket>/workdirs/<sha256>.tar.gz`: the working directory the workers run in. */
  readonly workdir?: string;
  /** Shell commands run once per job on each host, in the working directory, before `command`. */
  readonly setup?: readonly string[];
}

export interface JobIdentity {
  readonly id: string;
  readonly tenant: string;
  /** Seconds on the scheduler clock (epoch seconds on AWS). */
  readonly submitTime: number;
}

/** The scheduling core's view of a validated document. */
export const toJobSpec = (doc: JobSpecDocument, identity: JobIdentity): JobSpec => ({
  id: identity.id,
  tenant: identity.tenant,
  ...modelOf(doc),
  batchSize: doc.batchSize,
  gpus: doc.gpus,
  iterations: doc.iterations,
  priority: doc.priority ?? 0,
  packable: doc.packable ?? false,
  submitTime: identity.submitTime,
  ...(doc.name !== undefined ? { name: doc.name } : {}),
  ...(doc.gpuTypes ? { gpuTypes: doc.gpuTypes } : {}),
  ...(doc.preferredGpuType ? { preferredGpuType: doc.preferredGpuType } : {}),
  ...(doc.deadline !== undefined ? { deadline: Date.parse(doc.deadline) / 1000 } : {}),
  ...(doc.elastic ? { elastic: doc.elastic } : {}),
  ...(doc.labels ? { labels: doc.labels } : {}),
});

/** The catalog id, or a user model's id and reference (its name and declared profile, if any). */
const modelOf = (doc: JobSpecDocument): Pick<JobSpec, 'model' | 'userModel'> => {
  if (isCatalogModel(doc.model)) return { model: doc.model };
  const userModel = { name: doc.model, ...(doc.profile ? { profile: doc.profile } : {}) };
  return { model: userModelId(userModel, doc), userModel };
};

export const toJobLaunch = (doc: JobSpecDocument): JobLaunch => launchOf(doc);

function launchOf(doc: Pick<JobSpecDocument, 'command' | 'env' | 'image' | 'workdir' | 'setup'>): JobLaunch {
  return {
    command: doc.command,
    ...(doc.env && Object.keys(doc.env).length > 0 ? { env: doc.env } : {}),
    ...(doc.image !== undefined ? { image: doc.image } : {}),
    ...(doc.workdir !== undefined ? { workdir: doc.workdir } : {}),
    ...(doc.setup !== undefined ? { setup: doc.setup } : {}),
  };
}

/**
 * A stable digest of what a document asks for (the client token excluded), so a retried submit with the same
 * token can be told apart from a different job reusing the token.
 */
export const jobSpecFingerprint = (doc: JobSpecDocument): string => {
  const { clientToken: _token, ...rest } = doc;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
};

const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};
