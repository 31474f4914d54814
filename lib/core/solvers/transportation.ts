/** An edge between a left class and a right class; using it once earns `weight`. */
export interface ClassEdge {
  readonly left: number;
  readonly right: number;
  readonly weight: number;
}

const EPS = 1e-12;

/**
 * Max-weight b-matching between classes of interchangeable items: left class `l` holds `leftCount[l]` items,
 * right class `r` holds `rightCount[r]`, and each item is matched at most once. It is the job-level
 * max-weight bipartite matching when jobs with equal weights to everyone are merged into a class, solved as a
 * min-cost flow by successive shortest paths (Bellman–Ford/SPFA on the residual graph) that stops when no path
 * gains anything — so it is optimal for any matching size, not only a maximum one. Returns the number of
 * matches on each edge, in `edges` order. Edges with weight ≤ 0 are never used.
 */
export const maxWeightClassMatching = (
  leftCount: readonly number[],
  rightCount: readonly number[],
  edges: readonly ClassEdge[],
): number[] => {
  const L = leftCount.length;
  const R = rightCount.length;
  leftCount.forEach((c, l) => {
    checkCount('leftCount', l, c);
  });
  rightCount.forEach((c, r) => {
    checkCount('rightCount', r, c);
  });
  edges.forEach((e, k) => {
    if (!(Number.isInteger(e.left) && e.left >= 0 && e.left < L))
      throw new RangeError(`edges[${k}].left = ${e.left} out of range [0, ${L})`);
    if (!(Number.isInteger(e.right) && e.right >= 0 && e.right < R))
      throw new RangeError(`edges[${k}].right = ${e.right} out of range [0, ${R})`);
    if (!Number.isFinite(e.weight)) throw new RangeError(`edges[${k}].weight = ${e.weight} must be finite`);
  });

  // Nodes: source 0, left 1..L, right L+1..L+R, sink L+R+1. Arcs come in (forward, backward) pairs.
  const nodes = L + R + 2;
  const source = 0;
  const sink = L + R + 1;
  const head: number[] = new Array(nodes).fill(-1);
  const to: number[] = [];
  const next: number[] = [];
  const capacity: number[] = [];
  const cost: number[] = [];
  const addArc = (from: number, target: number, cap: number, c: number): number => {
    const id = to.length;
    to.push(target, from);
    capacity.push(cap, 0);
    cost.push(c, -c);
    next.push(head[from]!, head[target]!);
    head[from] = id;
    head[target] = id + 1;
    return id;
  };
  for (let l = 0; l < L; l++) if (leftCount[l]! > 0) addArc(source, 1 + l, leftCount[l]!, 0);
  for (let r = 0; r < R; r++) if (rightCount[r]! > 0) addArc(1 + L + r, sink, rightCount[r]!, 0);
  const edgeArc = edges.map((e) =>
    e.weight > 0
      ? addArc(1 + e.left, 1 + L + e.right, Math.min(leftCount[e.left]!, rightCount[e.right]!), -e.weight)
      : -1,
  );

  const dist = new Float64Array(nodes);
  const viaArc = new Int32Array(nodes);
  const inQueue = new Uint8Array(nodes);
  const relaxations = new Int32Array(nodes);
  for (;;) {
    dist.fill(Number.POSITIVE_INFINITY);
    viaArc.fill(-1);
    relaxations.fill(0);
    dist[source] = 0;
    const queue: number[] = [source];
    inQueue[source] = 1;
    for (let q = 0; q < queue.length; q++) {
      const x = queue[q]!;
      inQueue[x] = 0;
      for (let a = head[x]!; a >= 0; a = next[a]!) {
        if (capacity[a]! <= 0) continue;
        const y = to[a]!;
        const d = dist[x]! + cost[a]!;
        if (d < dist[y]! - EPS) {
          dist[y] = d;
          viaArc[y] = a;
          if (!inQueue[y]) {
            // A node relaxed more often than there are nodes means a negative cycle: impossible for a
            // min-cost flow built this way, so it can only be rounding; stop rather than loop.
            if (++relaxations[y]! > nodes)
              throw new Error('class matching: negative cycle (numerical trouble)');
            inQueue[y] = 1;
            queue.push(y);
          }
        }
      }
    }
    if (!(dist[sink]! < -EPS)) break;
    let bottleneck = Number.POSITIVE_INFINITY;
    for (let y = sink; y !== source; y = to[viaArc[y]! ^ 1]!)
      bottleneck = Math.min(bottleneck, capacity[viaArc[y]!]!);
    for (let y = sink; y !== source; y = to[viaArc[y]! ^ 1]!) {
      capacity[viaArc[y]!] = capacity[viaArc[y]!]! - bottleneck;
      capacity[viaArc[y]! ^ 1] = capacity[viaArc[y]! ^ 1]! + bottleneck;
    }
  }
  // The flow on an edge is what its backward arc can give back.
  return edgeArc.map((a) => (a < 0 ? 0 : capacity[a ^ 1]!));
};

const checkCount = (name: string, index: number, count: number): void => {
  if (!(Number.isSafeInteger(count) && count >= 0))
    throw new RangeError(`${name}[${index}] = ${count}: counts must be integers ≥ 0`);
};
