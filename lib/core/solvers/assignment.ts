/**
 * A rectangular linear assignment: every row of the smaller side gets exactly one column (or every column one
 * row when there are more rows than columns); nothing is assigned twice.
 */
export interface Assignment {
  /** Column of each row, or -1 for rows left out (only when rows > cols). */
  readonly rowToCol: Int32Array;
  /** Row of each column, or -1 for columns left out. */
  readonly colToRow: Int32Array;
  /** Sum of the chosen entries of the matrix as given (costs for min-cost, weights for max-weight). */
  readonly total: number;
}

/**
 * Checks a dense row-major matrix: integer sizes, `rows × cols` entries, all finite. Errors name the entry,
 * e.g. `cost[2][0] = NaN: entries must be finite numbers`.
 */
export const checkMatrix = (name: string, values: ArrayLike<number>, rows: number, cols: number): void => {
  if (!(Number.isSafeInteger(rows) && rows >= 0) || !(Number.isSafeInteger(cols) && cols >= 0)) {
    throw new RangeError(`${name}: rows and cols must be integers ≥ 0, got ${rows} × ${cols}`);
  }
  if (values.length !== rows * cols) {
    throw new RangeError(
      `${name}: expected ${rows} × ${cols} = ${rows * cols} entries, got ${values.length}`,
    );
  }
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!;
    if (!Number.isFinite(v)) {
      throw new RangeError(
        `${name}[${Math.floor(k / cols)}][${k % cols}] = ${v}: entries must be finite numbers`,
      );
    }
  }
};

/** The matrix transposed (row-major in, row-major out). */
export const transpose = (values: ArrayLike<number>, rows: number, cols: number): Float64Array => {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = values[i * cols + j]!;
  return out;
};

/** Sum of the entries an assignment picks. */
export const assignedTotal = (values: ArrayLike<number>, cols: number, rowToCol: Int32Array): number => {
  let total = 0;
  for (let i = 0; i < rowToCol.length; i++) {
    const j = rowToCol[i]!;
    if (j >= 0) total += values[i * cols + j]!;
  }
  return total;
};
