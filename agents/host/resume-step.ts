/**
 * Which global step a (re)started generation of a job resumes from.
 *
 * Rule: the newest complete checkpoint wins, i.e. the maximum of
 *   - the desired state's `resumeStep`,
 *   - the newest checkpoint this agent saw confirmed (rank 0's `checkpoint` line) for the same URI,
 *   - the newest `step-<S>/COMPLETE` directory found in storage (file:// URIs only).
 *
 * Why not simply trust `resumeStep`: the control plane writes it from the telemetry it has received,
 * and the confirmation of the very checkpoint taken for this rescale is sent in the same moment the
 * agent starts the new generation, so the desired value often lags by one checkpoint. Resuming from
 * the older one would repeat steps that were already trained (wasted GPU time and, for jobs without
 * determinism guarantees, a different trajectory). A newer *complete* checkpoint is always safe to
 * resume from: a step directory is complete only after every worker agreed on that boundary and the
 * COMPLETE marker was written last. A desired value newer than anything the agent knows is trusted:
 * it was confirmed elsewhere (e.g. rank 0 ran on another host).
 */
export function resolveResumeStep(
  desiredResumeStep: number,
  ...knownCompleteSteps: (number | null)[]
): number {
  let step = desiredResumeStep;
  for (const known of knownCompleteSteps) {
    if (known !== null && known > step) step = known;
  }
  return step;
}

/**
 * The resume step of a job's part on this host. A job whose ranks all run here may resume from the newest
 * complete checkpoint this host knows (resolveResumeStep). A job spread over several hosts resumes from the
 * desired state's `resumeStep` alone: every host gets the same value, whereas what each host knows locally (its own
 * uploads, a cached S3 listing) differs, and ranks that load different steps cannot train together.
 */
export function resumeStepOfPart(
  want: { readonly resumeStep: number; readonly worldSize: number; readonly workers: readonly unknown[] },
  ...knownCompleteSteps: (number | null)[]
): number {
  if (want.workers.length < want.worldSize) return want.resumeStep;
  return resolveResumeStep(want.resumeStep, ...knownCompleteSteps);
}
