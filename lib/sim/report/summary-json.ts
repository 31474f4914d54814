import type { PolicyRun } from '../run.ts';

/**
 * The runs' summaries as a pretty JSON array, in run order. JSON has no NaN or Infinity: such fields (a JCT
 * statistic when no job completed) come out as `null`, which is what `JSON.stringify` does and readers expect.
 */
export const renderSummaryJson = (runs: readonly PolicyRun[]): string =>
  `${JSON.stringify(
    runs.map((r) => r.summary),
    null,
    2,
  )}\n`;
