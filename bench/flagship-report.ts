import { fixed, policyTable } from '../lib/cli/policy-table.ts';
import { formatTable } from '../lib/cli/table.ts';
import type { BenchRow } from './types.ts';

/**
 * The flagship suite's text report: one short table per setup (each policy's results), then one line per setup
 * with tessera ÷ the best other policy and the targets it misses, then a legend. One wide table with every column
 * for every row would be ~280 characters wide and mostly empty cells.
 */
export const formatFlagshipReport = (rows: readonly BenchRow[]): string => {
  const setups = [...new Set(rows.map((r) => r.setup))];
  const comparisons = rows.filter((r) => r.policy.includes('÷'));
  const perSetup = setups.map((setup) =>
    setupTable(
      setup,
      rows.filter((r) => r.setup === setup),
    ),
  );
  const met = comparisons.filter((r) => r.meetsTargets === true).length;
  return [
    ...perSetup,
    'tessera ÷ the best other policy on each metric',
    comparisonTable(comparisons),
    '',
    `targets met on ${met} of ${comparisons.length} setups`,
    ...LEGEND,
  ].join('\n');
};

const setupTable = (setup: string, rows: readonly BenchRow[]): string => {
  const results = rows.filter((r) => !r.policy.includes('÷'));
  const policies = [
    ...results.filter((r) => r.policy === 'tessera'),
    ...results.filter((r) => r.policy !== 'tessera'),
  ];
  const comparison = rows.find((r) => r.policy.includes('÷'));
  const jobs = policies[0]?.jobs;
  const load = comparison ? `, offered load ${loadText(comparison.offeredLoad)}` : '';
  const table = policyTable(
    policies,
    [
      'policy',
      'doneOfJobs',
      'avgJct',
      'p50Jct',
      'p99Jct',
      'makespan',
      'gpuHours',
      'cost',
      'wallSeconds',
      'cpuSeconds',
    ],
    's',
  );
  return `${setup} — ${jobs} jobs${load}\n${indent(table)}\n`;
};

const comparisonTable = (rows: readonly BenchRow[]): string =>
  formatTable(
    [
      'setup',
      'best',
      'avg',
      'p50',
      'p99',
      'mkspan',
      'GPU-h',
      'cost',
      '÷LB',
      'load',
      'wall',
      'CPU',
      'targets',
    ],
    rows.map((r) => [
      r.setup,
      String(r.best ?? ''),
      fixed(r.avgJctRatio, 2),
      fixed(r.p50JctRatio, 2),
      fixed(r.p99JctRatio, 2),
      fixed(r.makespanRatio, 2),
      fixed(r.gpuHoursRatio, 2),
      fixed(r.costRatio, 2),
      fixed(r.jctOverLowerBound, 2),
      loadText(r.offeredLoad),
      fixed(r.wallRatio, 2),
      fixed(r.cpuRatio, 2),
      r.meetsTargets === true ? 'met' : `MISS ${r.misses ?? ''}`,
    ]),
    { leftAligned: 2 },
  );

const LEGEND = [
  'avg, p50, p99: JCT ratios; mkspan: makespan; GPU-h: GPU-hours used; cost: on-demand EC2 dollars (– where some GPU',
  '  type has no EC2 price); ÷LB: tessera avg JCT ÷ its lower bound (each job alone from its arrival on the fastest',
  '  allocation any policy may give it); load: offered load on the reference GPU type (∞: all jobs arrive at once);',
  '  wall, CPU: tessera simulation wall / process CPU seconds ÷ the slowest of fifo, tiresias, srtf (CPU is steadier',
  '  on a busy machine; both noisy below ~1 s; the target is on wall). best: the best other policy by avg JCT; each',
  '  ratio is against the best other on that metric, among policies that completed the most jobs.',
  'targets (issue 11): avg ≤ 1.05, p99 ≤ 1.10, makespan ≤ 1.10, ÷LB ≤ 1.5 where load ≤ 0.8, wall ≤ 2.',
];

const loadText = (v: unknown): string =>
  typeof v === 'number' ? (Number.isFinite(v) ? v.toFixed(2) : '∞') : v === null ? '∞' : '–';
const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
