/**
 * Which module registers each top-level command, so `bin/cli.ts` loads only the one a command needs (a job
 * command must not pay for the simulator, the benchmarks or the local cloud).
 */

/** The commands `lib/cli/api-commands.ts` registers. */
export const API_COMMANDS: readonly string[] = ['submit', 'jobs', 'job', 'logs', 'cancel', 'cluster'];

/** The module group of a command name (`process.argv[2]`): `api` for the job commands, else the name itself. */
export const commandGroup = (name: string): string => (API_COMMANDS.includes(name) ? 'api' : name);

/** Names a new user tries for what another command does (the job commands are nouns: `jobs`, `job <id>`). */
const LIKELY_NAMES: Readonly<Record<string, string>> = {
  queue: '`tessera jobs` lists your jobs with their queue position, why each waits and its estimated start',
  status: '`tessera jobs` lists your jobs and their status; `tessera job <id>` shows one',
  why: '`tessera job <id>` says why a job waits (also the WHY IT WAITS column of `tessera jobs`)',
  ls: '`tessera jobs` lists your jobs',
  list: '`tessera jobs` lists your jobs',
  show: '`tessera job <id>` shows one job',
  kill: '`tessera cancel <id…>` cancels jobs',
  stop: '`tessera cancel <id…>` cancels jobs',
  simulate: '`tessera sim` replays a trace',
  start: '`npm start` (or `tessera local`) runs the local cloud',
};

/** For a command name that does not exist but names what another does: the message pointing at that one. */
export const unknownCommandHint = (name: string): string | undefined =>
  Object.hasOwn(LIKELY_NAMES, name) ? `no command '${name}': ${LIKELY_NAMES[name]}` : undefined;
