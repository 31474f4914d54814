import type { NodeContent } from './node-pair-cost.ts';

/**
 * The last renaming solved for each host class, with the problem it answered, kept between rounds (the relabel
 * stage keeps one per cluster in the round memo, as it keeps `GpuAssignmentMemo`).
 *
 * Why. A class whose GPUs hold the same jobs in both plans is kept without solving (`unchangedClass`), except when a
 * job spread evenly over twin nodes lets the solver swap them at equal cost: there only the solver's own tie-break
 * says what the plan becomes, so it must run. Such a class (a multi-machine job in a rack of the Dally clusters)
 * usually stays as it is for many rounds while other racks change, and was solved every round again (held-out
 * batch:200@dally-16r: 299 of the 478 classes tessera's run solved; 241 of them are now answered from here). The
 * saving is small (that run's relabellings replayed warm: 31 → 24 ms; docs/architecture.md, speed notes).
 *
 * Why the answer is the same. The class's renaming (`relabelNodes`, then `refloatSingleGpuWork`) reads only its own
 * contents — the jobs on each GPU in both plans, in list order — and each such job's GPU counts in both plans; it
 * uses job numbers only to tell jobs apart and to index them (never compares them, never iterates them in numeric
 * order), and its memos (`GpuAssignmentMemo`, the workspace) never change an answer. The numbers are dense per round
 * (plan order), so the signature names each job by its id instead: equal signatures are the same problem up to a
 * renumbering, whose answer — a map of GPUs, which names no job — is the same. `class-answers.test.ts` checks
 * rounds answered from here against solving every class.
 */
export class ClassAnswers {
  private readonly known = new Map<object, { readonly signature: Signature; readonly map: Int32Array }>();

  /** The renaming solved for `cls` when its signature was `signature`, or undefined. Callers must not modify it. */
  get(cls: object, signature: Signature): Int32Array | undefined {
    const entry = this.known.get(cls);
    return entry && sameSignature(entry.signature, signature) ? entry.map : undefined;
  }

  /** Keeps `map` (no longer modified by the caller) as the answer for `cls` under `signature`. */
  set(cls: object, signature: Signature, map: Int32Array): void {
    this.known.set(cls, { signature, map });
  }
}

/** A class's renaming problem by job id: per GPU, its new then its old jobs in order, each with its GPU counts. */
export type Signature = readonly (string | number)[];

/**
 * The signature of a class's contents (`nodes` × `gpus`), job numbers named by `jobIds`, with the GPU counts
 * `oldGpus` / `newGpus` the savings are made of.
 */
export const classSignature = (
  contentOld: readonly NodeContent[],
  contentNew: readonly NodeContent[],
  jobIds: readonly string[],
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
): Signature => {
  const out: (string | number)[] = [];
  for (let p = 0; p < contentNew.length; p++) {
    const after = contentNew[p]!;
    const before = contentOld[p]!;
    for (let g = 0; g < after.length; g++) {
      addJobs(out, after[g]!, jobIds, oldGpus, newGpus);
      addJobs(out, before[g]!, jobIds, oldGpus, newGpus);
    }
  }
  return out;
};

const addJobs = (
  out: (string | number)[],
  jobs: readonly number[],
  jobIds: readonly string[],
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
): void => {
  out.push(jobs.length);
  for (const j of jobs) out.push(jobIds[j]!, oldGpus[j]!, newGpus[j]!);
};

const sameSignature = (a: Signature, b: Signature): boolean => {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
};
