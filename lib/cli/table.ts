/**
 * A plain aligned text table: the first `leftAligned` columns (default 1) left-aligned (text), the rest
 * right-aligned (numbers).
 */
export const formatTable = (
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: { leftAligned?: number } = {},
): string => {
  const left = options.leftAligned ?? 1;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
};
