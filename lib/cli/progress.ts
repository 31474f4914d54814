import { SingleBar } from 'cli-progress';

export interface Progress {
  update(fraction: number, detail?: string): void;
  stop(): void;
}

/**
 * Progress on stderr: a bar on a terminal; otherwise a line every 10 % so logs of CI and pipes stay readable.
 * stdout stays clean for `--json`.
 */
export const progress = (label: string, enabled = true): Progress => {
  if (!enabled) return { update: () => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { format: `${label} [{bar}] {percentage}% {detail}`, stream: process.stderr, hideCursor: true },
      { barCompleteChar: '█', barIncompleteChar: '░' } as never,
    );
    bar.start(100, 0, { detail: '' });
    return {
      update: (f, detail = '') => bar.update(Math.round(f * 100), { detail }),
      stop: () => bar.stop(),
    };
  }
  let lastDecile = -1;
  return {
    update: (f, detail = '') => {
      const decile = Math.floor(f * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        process.stderr.write(`${label} ${Math.round(f * 100)}% ${detail}\n`);
      }
    },
    stop: () => {},
  };
};
