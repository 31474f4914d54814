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

/** Solves a maximisation LP; returns the column values, or throws naming the status when not optimal. */
export const maximise = (lp: LinearProgram): Float64Array => {
  const result = highs.raw.lpCall({
    numCols: lp.columns,
    numRows: lp.rows,
    sense: highs.constants.objectiveSense.maximize,
    colCost: lp.cost,
    colLower: lp.columnLower,
    colUpper: lp.columnUpper,
    rowLower: lp.rowLower,
    rowUpper: lp.rowUpper,
    matrix: {
      format: 'csc',
      numRows: lp.rows,
      numCols: lp.columns,
      starts: lp.columnStart,
      indices: lp.rowIndex,
      values: lp.value,
    },
  });
  if (result.status === -1) throw new Error('linear program: HiGHS reported an error');
  const status = result.value.modelStatus;
  if (status !== highs.constants.modelStatus.optimal) {
    const name = Object.entries(highs.constants.modelStatus).find(([, code]) => code === status)?.[0];
    throw new Error(`linear program: HiGHS stopped with status ${name ?? status}, not optimal`);
  }
  return result.value.solution.colValue;
};
