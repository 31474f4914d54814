/**
 * Is pid P still the process we started? A pid alone is not enough after an agent restart: the
 * worker may have exited and the kernel may have reused its pid. The process start time (field 22 of
 * /proc/<pid>/stat, in clock ticks since boot) tells them apart.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

interface ProcStat {
  state: string;
  startTime: string;
}

function readProcStat(pid: number): ProcStat | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return process.platform === 'linux' ? null : undefined;
    return undefined;
  }
  // "pid (comm) state ppid ..." — comm may contain spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined) return undefined;
  return { state, startTime };
}

/** Start time of the process, or null if it does not exist (or cannot be told). */
export function processStartTime(pid: number): string | null {
  const stat = readProcStat(pid);
  if (stat) return stat.startTime;
  if (stat === null) return null;
  try {
    // Not Linux (a developer's Mac): ps prints the start time to the second.
    return execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Whether `pid` is alive, is not a zombie, and (when known) started at `startTime`. */
export function isSameProcessAlive(pid: number, startTime: string | null): boolean {
  const stat = readProcStat(pid);
  if (stat === null) return false;
  if (stat) {
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return startTime === null || stat.startTime === startTime;
  }
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return startTime === null || processStartTime(pid) === startTime;
}
