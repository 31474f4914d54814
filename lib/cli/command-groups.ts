/**
 * Which module registers each top-level command, so `bin/cli.ts` loads only the one a command needs (a job
 * command must not pay for the simulator, the benchmarks or the local cloud).
 */

/** The commands `lib/cli/api-commands.ts` registers. */
export const API_COMMANDS: readonly string[] = ['submit', 'jobs', 'job', 'logs', 'cancel', 'cluster'];

/** The module group of a command name (`process.argv[2]`): `api` for the job commands, else the name itself. */
export const commandGroup = (name: string): string => (API_COMMANDS.includes(name) ? 'api' : name);
