/**
 * What `--watch` prints before each refresh: on a terminal, clear the screen and home the cursor; into a file or a
 * pipe, no escape codes (they would litter the file), only a blank line between frames.
 */
export const watchFrameStart = (isTerminal: boolean, first: boolean): string =>
  isTerminal ? '\x1b[2J\x1b[H' : first ? '' : '\n';
