/**
 * The first index in [0, n) at which `isAfter` holds, or n if it holds nowhere; `isAfter` must be false then true
 * along the indices (monotone), as "the element is above x" is along an ascending array. Binary search, O(log n)
 * calls: the order stage asks it once per job, over arrays of tens of thousands (Rust's `partition_point`).
 */
export const partitionPoint = (n: number, isAfter: (i: number) => boolean): number => {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (isAfter(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
};
