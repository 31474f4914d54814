/**
 * CPU seconds (user + system) used so far by every descendant of this process (DynamoDB Local's java, its guard
 * shell), read from /proc: on a shared machine CPU time, not wall time, is what compares two runs. 0 without /proc.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

interface Stat {
  readonly pid: number;
  readonly ppid: number;
  readonly ticks: number;
}

const readStat = (pid: string): Stat | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields from 3 (state): ppid is 4, utime 14, stime 15 (1-based, proc(5)).
    return { pid: Number(pid), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined; // exited meanwhile
  }
};

export const descendantCpuSeconds = (root = process.pid): number => {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  const stats = entries.map(readStat).filter((s): s is Stat => s !== undefined);
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  let ticks = 0;
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const stat = stack.pop()!;
    ticks += stat.ticks;
    stack.push(...(children.get(stat.pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
};
