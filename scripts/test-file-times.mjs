// The files of a test run that took longest, each from the start of its process to its end: which files are slow
// decides their order in run-tests.mjs (SLOW_FIRST).
import { relative, resolve } from 'node:path';

const SHOWN = 20;

export const fileTimes = () => {
  const seconds = new Map();
  return {
    /** One `test:complete` event: each file runs as one top-level test named by its path. */
    add({ name, file, nesting, details }) {
      if (nesting === 0 && file && resolve(String(name)) === resolve(file) && details?.duration_ms) {
        seconds.set(relative(process.cwd(), resolve(file)), details.duration_ms / 1000);
      }
    },
    report() {
      const slowest = [...seconds].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
      if (slowest.length < 2) return '';
      const rows = slowest.map(([file, s]) => `${s.toFixed(1).padStart(7)}  ${file}\n`);
      return `\nslowest test files (seconds, wall):\n${rows.join('')}`;
    },
  };
};
