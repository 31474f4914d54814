import { createHash } from 'node:crypto';

/**
 * Deterministic physical names for template resources: the explicit name property when the
 * template sets one, else `<stack>-<logicalId>` (CloudFormation appends a random suffix; we do
 * not, so local names are predictable). Names over a service's limit are shortened with a
 * hash of the full name so they stay unique and stable.
 */
export interface NameRule {
  maxLength: number;
  /** Characters outside this class are replaced by '-'. */
  allowed: RegExp;
  suffix?: string;
}

export const NAME_RULES = {
  table: { maxLength: 255, allowed: /[A-Za-z0-9_.-]/ },
  queue: { maxLength: 80, allowed: /[A-Za-z0-9_-]/ },
  fifoQueue: { maxLength: 80, allowed: /[A-Za-z0-9_-]/, suffix: '.fifo' },
  rule: { maxLength: 64, allowed: /[A-Za-z0-9_.-]/ },
  function: { maxLength: 64, allowed: /[A-Za-z0-9_-]/ },
  launchTemplate: { maxLength: 128, allowed: /[A-Za-z0-9().\-/_]/ },
} satisfies Record<string, NameRule>;

export function generatedName(stackName: string, logicalId: string, rule: NameRule): string {
  const base = [...`${stackName}-${logicalId}`].map((ch) => (rule.allowed.test(ch) ? ch : '-')).join('');
  const suffix = rule.suffix ?? '';
  if (base.length + suffix.length <= rule.maxLength) return `${base}${suffix}`;
  const hash = createHash('sha256').update(base).digest('hex').slice(0, 8);
  return `${base.slice(0, rule.maxLength - suffix.length - hash.length - 1)}-${hash}${suffix}`;
}
