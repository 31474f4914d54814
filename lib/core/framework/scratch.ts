/**
 * The round's scratch store (the Kubernetes scheduling framework's CycleState): data one stage computes and others
 * reuse within the same round, e.g. each job's Crius Cells, which the allocation stage's `reject`, `allocate` and
 * `nextState` all read. It lives on the round context, so it dies with the round; nothing is cached in modules.
 * A stage that widens the context (`{ ...ctx, state }`) keeps the same store, so entries whose inputs may differ
 * between such contexts must key on them.
 */
export class RoundScratch {
  private readonly entries = new Map<ScratchKey<unknown>, unknown>();

  /** The entry under `key`, made on first use. */
  get<V>(key: ScratchKey<V>, make: () => V): V {
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const value = make();
    this.entries.set(key, value);
    return value;
  }
}

/** A typed slot of the scratch store; compare by identity (one module-level constant per kind of entry). */
export interface ScratchKey<V> {
  readonly name: string;
  /** Phantom: ties the key to its value type. */
  readonly value?: V;
}

export const scratchKey = <V>(name: string): ScratchKey<V> => ({ name });
