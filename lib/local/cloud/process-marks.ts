/**
 * Finding every process the local cloud started, including the workers host agents start in their own process
 * groups: each agent gets two marker variables in its environment, which its workers inherit. A process is "ours"
 * when its /proc environment carries the cloud's run id (Linux; elsewhere only direct children are known).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Marks every process of one local cloud run. */
export const CLOUD_RUN_ENV = 'TESSERA_LOCAL_CLOUD_RUN';
/** Marks the processes of one simulated instance (its agent and the agent's workers). */
export const INSTANCE_ENV = 'TESSERA_LOCAL_INSTANCE';

/** Pids of live processes whose environment has `name=value`. */
export const pidsWithEnv = (name: string, value: string): number[] => {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = `${name}=${value}`;
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (environ.split('\0').includes(needle) && !isZombie(entry)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
};

const isZombie = (pid: string): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
};

/** Sends `signal` to each pid, ignoring those already gone. */
export const signalAll = (pids: readonly number[], signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already exited
    }
  }
};
