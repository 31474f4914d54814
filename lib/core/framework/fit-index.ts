/**
 * Queue positions 0..n−1, each with the GPUs its job needs (Infinity = not eligible): a segment tree of minima that
 * answers "the first position, in queue order, whose need is at most `free`" in O(log n) and removes a position in
 * O(log n). The start estimate walks the waiting queue with it, so a small job may start past a large one exactly
 * as a non-blocking (backfilling) allocation would let it.
 */
export class FitIndex {
  private readonly size: number;
  private readonly min: Float64Array;

  constructor(needs: readonly number[]) {
    let size = 1;
    while (size < Math.max(1, needs.length)) size *= 2;
    this.size = size;
    this.min = new Float64Array(2 * size).fill(Number.POSITIVE_INFINITY);
    for (let i = 0; i < needs.length; i++) this.min[size + i] = needs[i]!;
    for (let i = size - 1; i >= 1; i--) this.min[i] = Math.min(this.min[2 * i]!, this.min[2 * i + 1]!);
  }

  /** The first position whose need is ≤ `free`, or −1. */
  firstFitting(free: number): number {
    if (this.min[1]! > free) return -1;
    let node = 1;
    while (node < this.size) node = this.min[2 * node]! <= free ? 2 * node : 2 * node + 1;
    return node - this.size;
  }

  remove(position: number): void {
    let node = this.size + position;
    this.min[node] = Number.POSITIVE_INFINITY;
    for (node >>= 1; node >= 1; node >>= 1)
      this.min[node] = Math.min(this.min[2 * node]!, this.min[2 * node + 1]!);
  }
}
