/** One benchmark measurement: a JSON line of `tessera bench --json`. */
export interface BenchRow {
  readonly suite: string;
  readonly setup: string;
  readonly policy: string;
  readonly [metric: string]: string | number | boolean | undefined;
}

export interface BenchOptions {
  readonly quick: boolean;
  readonly seed: number;
  /** Spread of seeded length noise on jobs' true work (1 = users' estimates are exact); suites that support it. */
  readonly lengthNoise?: number;
  /** Suites with several setups (flagship): only the setups whose names contain this text. */
  readonly only?: string;
  /** Suites with a held-out matrix (flagship): run the workloads the issue does not name instead of the named ones. */
  readonly heldOut?: boolean;
  /**
   * Flagship: one setup from a trace file (any format `tessera sim --trace` reads) on a cluster preset, instead of a
   * matrix — tessera against every other policy on a trace of one's own or a public one.
   */
  readonly trace?: { readonly path: string; readonly cluster: string };
  /** Called with a one-line progress message (stderr in the CLI). */
  readonly log: (message: string) => void;
}

export interface BenchSuite {
  readonly name: string;
  readonly description: string;
  /** Columns shown in the text table, in order. */
  readonly columns: readonly string[];
  /** The text report, where one table of `columns` would not read well (default: that table). */
  readonly formatText?: (rows: readonly BenchRow[]) => string;
  run(options: BenchOptions): AsyncIterable<BenchRow> | Iterable<BenchRow>;
}
