/**
 * Derived data a shell carries from one round to the next (the simulator for a whole run, the warm round Lambda
 * between invocations): e.g. each job's uncalibrated Crius Cells or why it can never run. Never persisted, never
 * module-level. Each entry hangs off an object the round is given (a job spec, a cluster) and is a pure function of
 * it and of the inputs the entry records and checks itself (cluster capacity, perf model, stage): a warm or a cold
 * memo gives the same plan, so a shell may drop it at any time. Entries die with their owner (weak references).
 */
export class RoundMemo {
  // One weak map per kind of entry (a handful), keyed by owner: a first use is one insertion, not a map per owner.
  private readonly byKey = new Map<MemoKey<unknown>, WeakMap<object, unknown>>();

  /** The entry of `owner` under `key`, made on first use. */
  of<V>(owner: object, key: MemoKey<V>, make: () => V): V {
    let entries = this.byKey.get(key) as WeakMap<object, V> | undefined;
    if (!entries) {
      entries = new WeakMap();
      this.byKey.set(key, entries);
    }
    const known = entries.get(owner);
    if (known !== undefined || entries.has(owner)) return known as V;
    const value = make();
    entries.set(owner, value);
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
