/** Finds complete checkpoints in storage, so the agent can resume from the newest one. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CheckpointCatalog {
  /** Newest step S with `<uri>/step-<S>/COMPLETE`, or null when none is known or the store cannot be listed. */
  newestComplete(checkpointUri: string): number | null;
}

const STEP_DIR = /^step-(\d+)$/;

/**
 * Lists file:// checkpoint directories. Other schemes (s3://) return null: the agent then relies on
 * rank 0's `checkpoint` report lines and the desired state's resumeStep, and listing S3 from the
 * reconcile loop would put network latency on its critical path.
 */
export const localCheckpointCatalog: CheckpointCatalog = {
  newestComplete(checkpointUri) {
    if (!checkpointUri.startsWith('file://')) return null;
    let root: string;
    let entries: string[];
    try {
      root = fileURLToPath(checkpointUri);
      entries = readdirSync(root);
    } catch {
      return null; // not created yet, or not a valid file URL: nothing to resume from
    }
    let newest: number | null = null;
    for (const entry of entries) {
      const match = STEP_DIR.exec(entry);
      if (!match) continue;
      const step = Number(match[1]);
      if ((newest === null || step > newest) && existsSync(join(root, entry, 'COMPLETE'))) newest = step;
    }
    return newest;
  },
};
