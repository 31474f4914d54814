/**
 * Settings of a Tessera deployment, from CDK context (`cdk deploy -c tessera:budgetPerHour=50`, or cdk.json),
 * validated: a bad value fails the synth naming the context key and the rule.
 */
import { z } from 'zod';
import { INSTANCE_OFFERINGS } from '../core/catalog/instances.ts';
import { policyNames } from '../core/policies.ts';
import { formatZodIssues } from '../protocol/format.ts';

const families = [...new Set(INSTANCE_OFFERINGS.map((o) => o.instanceType.split('.')[0]!))].sort();

export const CONTEXT_KEYS = {
  clusterName: 'tessera:clusterName',
  instanceFamilies: 'tessera:instanceFamilies',
  roundIntervalMinutes: 'tessera:roundIntervalMinutes',
  budgetPerHour: 'tessera:budgetPerHour',
  capacityType: 'tessera:capacityType',
  maxInstances: 'tessera:maxInstances',
  idleCooldownMinutes: 'tessera:idleCooldownMinutes',
  policy: 'tessera:policy',
  alarmEmail: 'tessera:alarmEmail',
  checkpointRetentionDays: 'tessera:checkpointRetentionDays',
  logRetentionDays: 'tessera:logRetentionDays',
  keepLegacyChangeIndex: 'tessera:keepLegacyChangeIndex',
} as const;

/** Context values arrive as strings from `-c`, as JSON values from cdk.json: both are accepted. */
const list = z.union([
  z.array(z.string()),
  z.string().transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ),
]);

export const tesseraPropsSchema = z.object({
  clusterName: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be 1-32 characters of a-z, 0-9 and -, starting with a letter')
    .default('tessera'),
  instanceFamilies: list
    .pipe(
      z
        .array(
          z.enum(families as [string, ...string[]], {
            error: `must name EC2 GPU families of the catalog: ${families.join(', ')}`,
          }),
        )
        .min(1, 'must name at least one instance family'),
    )
    .default(['g5']),
  roundIntervalMinutes: z.coerce
    .number()
    .int('must be a whole number of minutes')
    .min(1, 'must be at least 1')
    .max(60, 'must be at most 60')
    .default(1),
  budgetPerHour: z.coerce.number().min(0, 'must not be negative').default(10),
  capacityType: z.enum(['spot', 'on-demand'], { error: 'must be spot or on-demand' }).default('spot'),
  maxInstances: z.coerce
    .number()
    .int('must be an integer')
    .min(0, 'must not be negative')
    .max(1000, 'must be at most 1000')
    .default(4),
  idleCooldownMinutes: z.coerce
    .number()
    .int('must be a whole number of minutes')
    .min(0, 'must not be negative')
    .default(10),
  policy: z
    .string()
    .refine((p) => policyNames().includes(p), { error: `must be one of ${policyNames().join(', ')}` })
    .default('tessera'),
  alarmEmail: z.email('must be an e-mail address').optional(),
  checkpointRetentionDays: z.coerce
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .default(30),
  logRetentionDays: z.coerce
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .default(30),
  /** Keep the former whole-item change index for one deployment of an upgrade (docs/deploy.md, "Upgrading"). */
  keepLegacyChangeIndex: z
    .union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')], {
      error: 'must be true or false',
    })
    .default(false),
});

export type TesseraSettings = z.infer<typeof tesseraPropsSchema>;

export class InvalidContextError extends Error {
  override readonly name = 'InvalidContextError';
}

/** Reads and validates every setting; `context` is `(key) => node.tryGetContext(key)`. */
export const settingsFromContext = (context: (key: string) => unknown): TesseraSettings => {
  const raw: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(CONTEXT_KEYS)) {
    const value = context(key);
    if (value !== undefined && value !== null && value !== '') raw[field] = value;
  }
  const parsed = tesseraPropsSchema.safeParse(raw);
  if (!parsed.success) {
    const keyed = parsed.error.issues.map((issue) => ({
      ...issue,
      path: [
        CONTEXT_KEYS[issue.path[0] as keyof typeof CONTEXT_KEYS] ?? String(issue.path[0]),
        ...issue.path.slice(1),
      ],
    }));
    throw new InvalidContextError(`invalid Tessera settings (CDK context):\n${formatZodIssues(keyed)}`);
  }
  return parsed.data;
};

/** Catalog instance types of a family (`g5` → g5.xlarge …), fewest GPUs first. */
export const instanceTypesOf = (family: string): string[] =>
  INSTANCE_OFFERINGS.filter((o) => o.instanceType.split('.')[0] === family)
    .sort((a, b) => a.gpus - b.gpus || a.onDemandPerHour - b.onDemandPerHour)
    .map((o) => o.instanceType);
