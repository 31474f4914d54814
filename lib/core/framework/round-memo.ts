/**
 * Derived data a shell carries from one round to the next (the simulator for a whole run, the warm round Lambda
 * between invocations): e.g. each job's uncalibrated Crius Cells or why it can never run. Never persisted, never
 * module-level. Each entry hangs off an object the round is given (a job spec, a cluster) and is a pure function of
 * it and of the inputs the entry records and checks itself (cluster capacity, perf model, stage): a warm or a cold
 * memo gives the same plan, so a shell may drop it at any time. Entries die with their owner (weak references).
 */
export class RoundMemo {
  private readonly owners = new WeakMap<object, Map<MemoKey<unknown>, unknown>>();

  /** The entry of `owner` under `key`, made on first use. */
  of<V>(owner: object, key: MemoKey<V>, make: () => V): V {
    let entries = this.owners.get(owner);
    if (!entries) {
      entries = new Map();
      this.owners.set(owner, entries);
    }
    if (entries.has(key)) return entries.get(key) as V;
    const value = make();
    entries.set(key, value);
    return value;
  }
}

/** A typed slot of the memo; compare by identity (one module-level constant per kind of entry). */
export interface MemoKey<V> {
  readonly name: string;
  /** Phantom: ties the key to its value type. */
  readonly value?: V;
}

export const memoKey = <V>(name: string): MemoKey<V> => ({ name });
