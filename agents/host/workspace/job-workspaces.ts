/**
 * Each job's directory on the host: the working-directory archive extracted into `<root>/<job>/work` and the
 * job's `setup` run there once, before the first worker starts. Every worker of the job on this host waits for
 * the same preparation; restarts and rescales of the job reuse it (a `prepared` marker records what was
 * prepared, so an agent restart does not repeat setup). The directory goes when the job leaves the host.
 */

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { extract } from 'tar';
import type { DesiredJob } from '../../../lib/protocol/desired-state.ts';
import { containerName, containerRunArgs, setupScript } from './container-command.ts';
import type { WorkdirCache } from './fetch-workdir.ts';

export interface JobWorkspacesSettings {
  /** Parent of every job's directory (`<state dir>/workspaces`). */
  readonly root: string;
  /** Null when the agent has no S3 access: jobs with a `workdir` then fail with that reason. */
  readonly cache: WorkdirCache | null;
  /** Runs setup inside the job's image. */
  readonly containerRuntime: string;
}

/** How much of a failed setup's output goes into the job's failure reason. */
const SETUP_TAIL_BYTES = 1500;

export class JobWorkspaces {
  private readonly preparing = new Map<string, Promise<string>>();

  constructor(private readonly settings: JobWorkspacesSettings) {}

  /** The job's prepared working directory; `env` is what setup runs with (the first worker's). */
  prepare(job: DesiredJob, env: Readonly<Record<string, string>>): Promise<string> {
    const running = this.preparing.get(job.jobId);
    if (running) return running;
    const preparation = this.prepareOnce(job, env).finally(() => this.preparing.delete(job.jobId));
    this.preparing.set(job.jobId, preparation);
    return preparation;
  }

  /** Deletes the job's directory (the cached archive stays for other jobs of the same code). */
  release(jobId: string): void {
    if (this.preparing.has(jobId)) return; // a new placement is preparing it right now
    rmSync(this.jobDir(jobId), { recursive: true, force: true });
  }

  jobDir(jobId: string): string {
    return join(this.settings.root, encodeURIComponent(jobId));
  }

  private async prepareOnce(job: DesiredJob, env: Readonly<Record<string, string>>): Promise<string> {
    const dir = this.jobDir(job.jobId);
    const work = join(dir, 'work');
    const marker = join(dir, 'prepared');
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([job.workdir ?? null, job.image ?? null, job.setup ?? null]))
      .digest('hex');
    if (existsSync(work) && existsSync(marker) && readFileSync(marker, 'utf8') === fingerprint) return work;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    if (job.workdir !== undefined) await this.extract(job.workdir, dir, work);
    else mkdirSync(work);
    if (job.setup !== undefined) await this.setup(job, env, dir, work);
    writeFileSync(marker, fingerprint);
    return work;
  }

  private async extract(uri: string, dir: string, work: string): Promise<void> {
    if (!this.settings.cache)
      throw new Error(`working directory ${uri}: this agent has no S3 access configured`);
    const archive = await this.settings.cache.archive(uri);
    const unpacking = join(dir, 'work.unpacking');
    mkdirSync(unpacking);
    try {
      // tar refuses absolute paths and `..` entries by default: nothing lands outside the job's directory.
      await extract({ file: archive, cwd: unpacking });
    } catch (error) {
      throw new Error(
        `working directory ${uri}: the archive could not be extracted: ${(error as Error).message}`,
      );
    }
    renameSync(unpacking, work);
  }

  private async setup(
    job: DesiredJob,
    env: Readonly<Record<string, string>>,
    dir: string,
    work: string,
  ): Promise<void> {
    const script = setupScript(job.setup!);
    const command = job.image
      ? [
          this.settings.containerRuntime,
          ...containerRunArgs({
            runtime: this.settings.containerRuntime,
            image: job.image,
            name: containerName(`${job.jobId}/g${job.jobGeneration}/setup`),
            hostDir: work,
            gpuIndices: [],
            envNames: ['TESSERA_JOB_ID', ...Object.keys(job.env ?? {})],
            mounts: [],
            command: ['sh', '-c', script],
          }),
        ]
      : ['sh', '-c', script];
    const log = join(dir, 'setup.log');
    const code = await run(command, { cwd: work, env, log });
    if (code !== 0) {
      const output = readFileSync(log, 'utf8');
      const tail = output.length > SETUP_TAIL_BYTES ? `…${output.slice(-SETUP_TAIL_BYTES)}` : output;
      throw new Error(`setup failed (${code === null ? 'killed' : `exit ${code}`}): ${tail.trim()}`);
    }
  }
}

/** Runs a command to completion with its output in `log`; its exit code (null when killed or not started). */
const run = (
  command: readonly string[],
  options: { cwd: string; env: Readonly<Record<string, string>>; log: string },
): Promise<number | null> =>
  new Promise((resolve) => {
    const fd = openSync(options.log, 'a');
    try {
      const child = spawn(command[0]!, command.slice(1), {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', fd, fd],
      });
      child.once('error', (error) => {
        writeFileSync(options.log, `could not start ${command[0]}: ${error.message}\n`, { flag: 'a' });
        resolve(null);
      });
      child.once('exit', (code) => resolve(code));
    } finally {
      closeSync(fd);
    }
  });
