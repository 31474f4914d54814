// A test reporter (for run-tests.mjs) that prints, after the run, the files that took longest, each from the
// start of its process to its end. Which files are slow decides their order in run-tests.mjs (SLOW_FIRST).
import { isAbsolute, relative } from 'node:path';

const SHOWN = 20;

export default async function* fileTimes(source) {
  const seconds = new Map();
  for await (const event of source) {
    // Each file runs as one top-level test named by its absolute path; its completion carries the whole duration.
    const { name, nesting, details } = event.data ?? {};
    if (event.type === 'test:complete' && nesting === 0 && isAbsolute(String(name)) && details?.duration_ms) {
      seconds.set(relative(process.cwd(), name), details.duration_ms / 1000);
    }
  }
  const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  if (slowest.length < 2) return;
  yield '\nslowest test files (seconds, wall):\n';
  for (const [file, s] of slowest) yield `${s.toFixed(1).padStart(7)}  ${file}\n`;
}
