import computeMunkres from 'munkres-js';
import { hungarianMinCost } from '../lib/core/solvers/hungarian.ts';
import { minCostAssignment } from '../lib/core/solvers/lapjv.ts';
import { Random } from '../lib/traces/generators/random.ts';
import type { BenchRow, BenchSuite } from './types.ts';

interface Shape {
  readonly rows: number;
  readonly cols: number;
}

const FULL: readonly Shape[] = [
  { rows: 50, cols: 50 },
  { rows: 200, cols: 200 },
  { rows: 500, cols: 500 },
  { rows: 1000, cols: 1000 },
  { rows: 2000, cols: 2000 },
  { rows: 300, cols: 1500 },
];
const QUICK: readonly Shape[] = [
  { rows: 50, cols: 50 },
  { rows: 200, cols: 200 },
  { rows: 100, cols: 400 },
];
/** munkres-js is the classic step-by-step algorithm, far slower on large inputs: it runs up to this size. */
const MUNKRES_MAX_CELLS = 500 * 500;
/** Solves per measurement on inputs up to this size (the median is reported); larger ones are solved once. */
const REPEAT_MAX_CELLS = 300 * 300;

type Solver = (cost: Float64Array, rows: number, cols: number) => number;

const SOLVERS: readonly { name: string; solve: Solver; maxCells: number }[] = [
  { name: 'jonker-volgenant', solve: (c, r, k) => minCostAssignment(c, r, k).total, maxCells: Infinity },
  { name: 'hungarian', solve: (c, r, k) => hungarianMinCost(c, r, k).total, maxCells: Infinity },
  {
    name: 'munkres-js',
    solve: (c, r, k) => {
      const matrix = Array.from({ length: r }, (_, i) => Array.from(c.subarray(i * k, (i + 1) * k)));
      return computeMunkres(matrix).reduce((s, [i, j]) => s + c[i * k + j]!, 0);
    },
    maxCells: MUNKRES_MAX_CELLS,
  },
];

/**
 * Linear assignment solvers side by side on the same random integer cost matrices (uniform in [0, 1000)), after a warm-up
 * solve each, median of five solves up to 300 × 300: our
 * Jonker–Volgenant, the plain O(n³) Hungarian method and the `munkres-js` package. `agrees` checks that each
 * found the same optimum as Jonker–Volgenant.
 */
export const assignSuite: BenchSuite = {
  name: 'assign',
  description: 'linear assignment: Jonker–Volgenant vs plain Hungarian vs munkres-js (seconds per solve)',
  columns: ['setup', 'policy', 'rows', 'cols', 'seconds', 'total', 'agrees'],
  *run({ quick, seed, log }) {
    // Let the JIT compile every solver before anything is timed.
    const warm = Float64Array.from({ length: 40 * 40 }, (_, k) => (k * 7919) % 101);
    for (const solver of SOLVERS) solver.solve(warm, 40, 40);
    for (const shape of quick ? QUICK : FULL) {
      const rng = new Random(seed, shape.rows * 10_007 + shape.cols);
      const cost = Float64Array.from({ length: shape.rows * shape.cols }, () => rng.int(0, 999));
      let reference: number | undefined;
      for (const solver of SOLVERS) {
        if (shape.rows * shape.cols > solver.maxCells) continue;
        log(`assign: ${shape.rows} × ${shape.cols}, ${solver.name}`);
        const repeats = shape.rows * shape.cols <= REPEAT_MAX_CELLS ? 5 : 1;
        const samples: number[] = [];
        let total = 0;
        for (let r = 0; r < repeats; r++) {
          const started = performance.now();
          total = solver.solve(cost, shape.rows, shape.cols);
          samples.push((performance.now() - started) / 1000);
        }
        const seconds = samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
        reference ??= total;
        const row: BenchRow = {
          suite: 'assign',
          setup: `${shape.rows}x${shape.cols}`,
          policy: solver.name,
          rows: shape.rows,
          cols: shape.cols,
          seconds: Number(seconds.toFixed(4)),
          total,
          agrees: total === reference,
        };
        yield row;
      }
    }
  },
};
