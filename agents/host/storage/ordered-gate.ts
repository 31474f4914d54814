/**
 * Keeps the events of one job in order while some of them wait on the network: a checkpoint report is held
 * until its upload finished, and the worker exits and reports after it queue behind it, so the reconciler
 * sees "checkpoint S" (only once S is in S3) before "exited". Events of a key with nothing held run at once.
 */
export class OrderedGate {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Runs `action` now, or after everything held for `key`. */
  run(key: string, action: () => void): void {
    const tail = this.tails.get(key);
    if (!tail) {
      action();
      return;
    }
    this.chain(key, tail.then(action));
  }

  /** Later events of `key` wait until `work` settled and `then` ran with its result. */
  hold<T>(key: string, work: Promise<T>, then: (result: T | undefined) => void): void {
    const tail = this.tails.get(key) ?? Promise.resolve();
    const settled = work.catch((error: unknown) => {
      this.onError(error);
      return undefined;
    });
    this.chain(
      key,
      Promise.all([tail, settled]).then(([, result]) => then(result)),
    );
  }

  /** Whether anything is held for `key`. */
  holding(key: string): boolean {
    return this.tails.has(key);
  }

  private chain(key: string, next: Promise<void>): void {
    const guarded = next.catch((error: unknown) => this.onError(error));
    this.tails.set(key, guarded);
    void guarded.then(() => {
      if (this.tails.get(key) === guarded) this.tails.delete(key);
    });
  }
}
