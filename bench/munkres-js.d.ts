// munkres-js ships without types. Only what the assignment benchmark uses.
declare module 'munkres-js' {
  /** Kuhn–Munkres on a cost matrix (rows × cols); returns the chosen [row, col] pairs. */
  function computeMunkres(costMatrix: number[][]): [number, number][];
  export default computeMunkres;
}
