/**
 * The agent's state file: the reconciler's state plus the identity of every worker process it runs
 * (pid, start time, log offset). Written atomically (temp file + rename) after every change, read
 * once at start to re-adopt the workers of a previous agent process.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { reconcilerStateSchema } from './reconciler-state.ts';

export const persistedProcessSchema = z.object({
  ref: z.string(),
  pid: z.int().positive(),
  startTime: z.string().nullable(),
  stdoutPath: z.string(),
  stderrPath: z.string(),
  stdoutOffset: z.int().nonnegative(),
  stopRequested: z.boolean(),
  killed: z.boolean(),
});

export const agentStateFileSchema = z.object({
  version: z.literal(1),
  hostId: z.string(),
  /** Epoch ms of the agent clock, like the reconciler's timer instants (reconciler-state.ts): host-local. */
  savedAt: z.number(),
  reconciler: reconcilerStateSchema,
  processes: z.array(persistedProcessSchema),
});

export type PersistedProcess = z.infer<typeof persistedProcessSchema>;
export type AgentStateFile = z.infer<typeof agentStateFileSchema>;

export function writeStateFile(path: string, state: AgentStateFile): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state)}\n`);
  renameSync(temporary, path);
}

export type StateFileResult =
  | { kind: 'missing' }
  | { kind: 'invalid'; error: string }
  | { kind: 'ok'; state: AgentStateFile };

export function readStateFile(path: string): StateFileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'invalid', error: `${path}: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', error: `${path}: not valid JSON: ${(error as Error).message}` };
  }
  const parsed = agentStateFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', error: `${path}: ${issue?.path.join('.') || '(document)'}: ${issue?.message}` };
  }
  return { kind: 'ok', state: parsed.data };
}
