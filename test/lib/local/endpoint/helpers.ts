import { readdirSync, readFileSync } from 'node:fs';

/** Shared bits of the local-endpoint tests. */

export const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export function clientConfig(url: string) {
  return { endpoint: url, region: 'us-east-1', credentials };
}

/** Live processes whose process group is `pgid` (the DynamoDB Local guard and its java). */
export function processesInGroup(pgid: number): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command: state ppid pgrp …
    const afterCommand = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (afterCommand[0] === 'Z') continue;
    if (Number(afterCommand[2]) === pgid) {
      found.push({ pid: Number(entry), command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
    }
  }
  return found;
}

/** Poll `check` until it returns a value other than undefined, or fail after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
