import type { z } from 'zod';

/** One line per issue: `field.path: message`, so an error names the field and the rule. */
export const formatZodIssues = (issues: readonly z.core.$ZodIssue[]): string =>
  issues.map((i) => `  ${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`).join('\n');
