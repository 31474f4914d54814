/**
 * `tessera local` options for a test's own local cloud: its state in `stateDir` and every port chosen by the OS
 * (`0`), so that test files running at once never collide on a port or on state.
 */
export const ownLocalCloud = (stateDir: string): string[] => [
  '--state-dir',
  stateDir,
  '--port',
  '0',
  '--api-port',
  '0',
  '--dashboard-port',
  '0',
];
