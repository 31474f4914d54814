/** A sparse bipartite graph in compressed rows: row i's edges are `[rowStart[i], rowStart[i + 1])`. */
export interface SparseMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly rowStart: Int32Array;
  readonly colIndex: Int32Array;
  readonly cost: Float64Array;
}

export interface SparseAssignment {
  readonly rowToCol: Int32Array;
  readonly colToRow: Int32Array;
  readonly total: number;
}

/**
 * Scratch arrays of the sparse solver, kept by a caller that solves many small problems (a relabelling solves a
 * few per class, every round): allocating typed arrays cost more than solving them. Reused arrays are cleared
 * before each solve, so a workspace never changes an answer; one solve at a time per workspace.
 */
export class SparseWorkspace {
  u = new Float64Array(0);
  v = new Float64Array(0);
  dist = new Float64Array(0);
  pred = new Int32Array(0);
  seen = new Int32Array(0);
  done = new Int32Array(0);
  readonly heap = new MinHeap();

  /** Arrays for `rows` × `cols`, with potentials and stamps zeroed (dist and pred are written before read). */
  prepare(rows: number, cols: number): void {
    if (this.u.length < rows) this.u = new Float64Array(Math.max(rows, 2 * this.u.length));
    else this.u.fill(0, 0, rows);
    if (this.v.length < cols) {
      const size = Math.max(cols, 2 * this.v.length);
      this.v = new Float64Array(size);
      this.dist = new Float64Array(size);
      this.pred = new Int32Array(size);
      this.seen = new Int32Array(size);
      this.done = new Int32Array(size);
    } else {
      this.v.fill(0, 0, cols);
      this.seen.fill(0, 0, cols);
      this.done.fill(0, 0, cols);
    }
  }
}

/**
 * Min-cost assignment of every row on a sparse graph (missing edges are forbidden), by shortest augmenting
 * paths: a Dijkstra search over reduced costs with a binary heap per row, stopping at the first free column —
 * JV's augmentation without the dense scans, so a row's search touches only the edges it reaches.
 * O(rows · E · log cols) in the worst case. Throws when some row cannot be assigned. `workspace`: scratch arrays
 * to reuse (the answer is the same with or without).
 */
export const sparseMinCostAssignment = (
  graph: SparseMatrix,
  workspace: SparseWorkspace = new SparseWorkspace(),
): SparseAssignment => {
  checkSparse(graph);
  const { rows: n, cols: m, rowStart, colIndex, cost } = graph;
  workspace.prepare(n, m);
  const { u, v, dist, pred, heap } = workspace;
  const rowToCol = new Int32Array(n).fill(-1);
  const colToRow = new Int32Array(m).fill(-1);
  // Per-search stamps instead of clearing O(m) arrays for every row.
  const { seen, done } = workspace;
  const rowsVisited: number[] = [];
  const colsDone: number[] = [];

  for (let f = 0; f < n; f++) {
    const stamp = f + 1;
    heap.clear();
    rowsVisited.length = 0;
    colsDone.length = 0;
    let i = f;
    let minVal = 0;
    let sink = -1;
    for (;;) {
      for (let e = rowStart[i]!; e < rowStart[i + 1]!; e++) {
        const j = colIndex[e]!;
        if (done[j] === stamp) continue;
        const r = minVal + cost[e]! - u[i]! - v[j]!;
        if (seen[j] !== stamp || r < dist[j]!) {
          seen[j] = stamp;
          dist[j] = r;
          pred[j] = i;
          heap.push(r, j);
        }
      }
      let j = -1;
      while (heap.size > 0) {
        const col = heap.pop();
        if (done[col] !== stamp && heap.poppedKey === dist[col]) {
          j = col;
          break;
        }
      }
      if (j < 0) throw new RangeError(`sparse assignment: row ${f} cannot be assigned (no augmenting path)`);
      minVal = dist[j]!;
      done[j] = stamp;
      colsDone.push(j);
      if (colToRow[j] === -1) {
        sink = j;
        break;
      }
      i = colToRow[j]!;
      rowsVisited.push(i);
    }
    u[f] = u[f]! + minVal;
    for (const r of rowsVisited) u[r] = u[r]! + minVal - dist[rowToCol[r]!]!;
    for (const j of colsDone) v[j] = v[j]! - (minVal - dist[j]!);
    let j = sink;
    for (;;) {
      const r = pred[j]!;
      colToRow[j] = r;
      const next = rowToCol[r]!;
      rowToCol[r] = j;
      if (r === f) break;
      j = next;
    }
  }
  let total = 0;
  for (let r = 0; r < n; r++) {
    const col = rowToCol[r]!;
    for (let e = rowStart[r]!; e < rowStart[r + 1]!; e++) {
      if (colIndex[e] === col) {
        total += cost[e]!;
        break;
      }
    }
  }
  return { rowToCol, colToRow, total };
};

const checkSparse = (g: SparseMatrix): void => {
  if (!(Number.isSafeInteger(g.rows) && g.rows >= 0 && Number.isSafeInteger(g.cols) && g.cols >= 0)) {
    throw new RangeError(`sparse assignment: rows and cols must be integers ≥ 0, got ${g.rows} × ${g.cols}`);
  }
  if (g.rowStart.length !== g.rows + 1 || g.rowStart[0] !== 0) {
    throw new RangeError(
      `sparse assignment: rowStart must have rows + 1 = ${g.rows + 1} entries starting at 0`,
    );
  }
  const edges = g.rowStart[g.rows]!;
  if (g.colIndex.length !== edges || g.cost.length !== edges) {
    throw new RangeError(`sparse assignment: colIndex and cost must have rowStart[rows] = ${edges} entries`);
  }
  for (let i = 0; i < g.rows; i++) {
    if (g.rowStart[i + 1]! < g.rowStart[i]!)
      throw new RangeError(`sparse assignment: rowStart must be non-decreasing (row ${i})`);
  }
  for (let e = 0; e < edges; e++) {
    const j = g.colIndex[e]!;
    if (!(j >= 0 && j < g.cols))
      throw new RangeError(`sparse assignment: colIndex[${e}] = ${j} out of range`);
    if (!Number.isFinite(g.cost[e]!))
      throw new RangeError(`sparse assignment: cost[${e}] = ${g.cost[e]}: costs must be finite numbers`);
  }
};

/** Binary min-heap of (key, item) with lazy deletion by the caller. */
class MinHeap {
  private keys = new Float64Array(64);
  private items = new Int32Array(64);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  push(key: number, item: number): void {
    if (this.size === this.keys.length) {
      const keys = new Float64Array(this.size * 2);
      keys.set(this.keys);
      this.keys = keys;
      const items = new Int32Array(this.size * 2);
      items.set(this.items);
      this.items = items;
    }
    let k = this.size++;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.keys[k] = this.keys[parent]!;
      this.items[k] = this.items[parent]!;
      k = parent;
    }
    this.keys[k] = key;
    this.items[k] = item;
  }

  /** The key of the item `pop` returned last. */
  poppedKey = 0;

  /** Removes the item of least key and returns it; its key is then `poppedKey` (no pair allocated per pop). */
  pop(): number {
    const topKey = this.keys[0]!;
    const topItem = this.items[0]!;
    const key = this.keys[--this.size]!;
    const item = this.items[this.size]!;
    let k = 0;
    for (;;) {
      let child = 2 * k + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.keys[child + 1]! < this.keys[child]!) child++;
      if (this.keys[child]! >= key) break;
      this.keys[k] = this.keys[child]!;
      this.items[k] = this.items[child]!;
      k = child;
    }
    this.keys[k] = key;
    this.items[k] = item;
    this.poppedKey = topKey;
    return topItem;
  }
}
