import type { Highs } from 'highs';
import * as highsPackage from 'highs';

/**
 * HiGHS (Huangfu & Hall's LP/MIP solver) compiled to WebAssembly. Loading is asynchronous, solving is not, so
 * the module is loaded once when this file is first imported (top-level await) and the scheduling core's
 * stages can stay synchronous. Loading reads the package's .wasm file: the one I/O of the core, done at import.
 */
type Loader = () => Promise<Highs>;
// The package's types describe its CommonJS build, where the loader sits one `default` deeper than in the
// ES build Node loads here; accept either shape.
const loader = (highsPackage as unknown as { default: Loader | { default: Loader } }).default;
const highs = await (typeof loader === 'function' ? loader : loader.default)();

/** A linear program in column-compressed form: maximise `cost·x` subject to row and column bounds. */
export interface LinearProgram {
  readonly columns: number;
  readonly rows: number;
  readonly cost: Float64Array;
  readonly columnLower: Float64Array;
  readonly columnUpper: Float64Array;
  readonly rowLower: Float64Array;
  readonly rowUpper: Float64Array;
  /** CSC: column k's entries are `[columnStart[k], columnStart[k + 1])`. */
  readonly columnStart: Int32Array;
  readonly rowIndex: Int32Array;
  readonly value: Float64Array;
}

/** ±infinity as HiGHS understands it, for unbounded rows and columns. */
export const LP_INFINITY: number = highs.infinity;

const OPTIMAL: number = highs.constants.modelStatus.optimal;

/** HiGHS option values by name (https://ergo-code.github.io/HiGHS/stable/options/definitions/); {} = the defaults. */
export type SolverSettings = Readonly<Record<string, string | number | boolean>>;

/**
 * The settings tried in order: the defaults (dual simplex), then the primal simplex (`simplex_strategy` 4), then the
 * interior-point solver. On some of Gavel's programs the dual simplex stops with status "unknown" after postsolve (a
 * numerical residue at the optimum; the one-shot call reports "notSet") while the others prove the same optimum.
 * Every program here is feasible and bounded, so such a stop is numerical, never a property of the problem.
 */
export const SOLVER_ATTEMPTS: readonly SolverSettings[] = [{}, { simplex_strategy: 4 }, { solver: 'ipm' }];

/**
 * Solves a maximisation LP with the first of `attempts` that proves optimality; returns the column values, or throws
 * naming each attempt's status.
 */
export const maximise = (
  lp: LinearProgram,
  attempts: readonly SolverSettings[] = SOLVER_ATTEMPTS,
): Float64Array => {
  const model = highsModel(lp);
  const stops: string[] = [];
  for (const settings of attempts) {
    const solved = solveWith(model, settings);
    if (typeof solved !== 'string') return solved;
    stops.push(`${JSON.stringify(settings)}: ${solved}`);
  }
  throw new Error(`linear program: HiGHS did not prove optimality (${stops.join('; ')})`);
};

/** The optimal column values, or the name of the status HiGHS stopped with. */
const solveWith = (model: ReturnType<typeof highsModel>, settings: SolverSettings): Float64Array | string => {
  if (Object.keys(settings).length === 0) {
    // The defaults through the one-shot call: no native model object to create and dispose.
    const result = highs.raw.lpCall(model);
    if (result.status === -1) return 'error';
    return result.value.modelStatus === OPTIMAL
      ? result.value.solution.colValue
      : statusName(result.value.modelStatus);
  }
  try {
    return highs.withModel(model, (m) => {
      m.options.set(settings);
      const run = m.run();
      return run.modelStatus === OPTIMAL
        ? Float64Array.from(m.getSolution().colValue)
        : statusName(run.modelStatus);
    });
  } catch (error) {
    return `error (${error instanceof Error ? error.message : String(error)})`;
  }
};

const statusName = (status: number): string =>
  Object.entries(highs.constants.modelStatus).find(([, code]) => code === status)?.[0] ?? String(status);

const highsModel = (lp: LinearProgram) => ({
  numCols: lp.columns,
  numRows: lp.rows,
  sense: highs.constants.objectiveSense.maximize,
  colCost: lp.cost,
  colLower: lp.columnLower,
  colUpper: lp.columnUpper,
  rowLower: lp.rowLower,
  rowUpper: lp.rowUpper,
  matrix: {
    format: 'csc' as const,
    numRows: lp.rows,
    numCols: lp.columns,
    starts: lp.columnStart,
    indices: lp.rowIndex,
    values: lp.value,
  },
});
