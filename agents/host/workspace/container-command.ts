/**
 * The container runtime invocations for a job with an `image` (pure): one `run` per worker, with only that
 * worker's GPUs, the host network (rendezvous between hosts), the job's working directory at /workspace, and
 * the protocol and job variables passed by name (their values stay out of the process list). Inside the
 * container the worker's GPUs are numbered from 0, so CUDA_VISIBLE_DEVICES is renumbered. A `file://`
 * checkpoint directory is mounted at the same path, so the URI the trainer is given stays valid.
 * docs/host-agent.md ("Code on the host") lists what the AMI needs.
 */

/** Where the working directory appears inside the container. */
export const CONTAINER_WORKDIR = '/workspace';

export interface ContainerRun {
  /** The runtime binary (`docker` by default; `--container-runtime`). */
  readonly runtime: string;
  readonly image: string;
  /** A name unique per worker, so a killed worker's container can be removed. */
  readonly name: string;
  /** The job's working directory on the host, or null when the job has none. */
  readonly hostDir: string | null;
  /** Host GPU indices of the worker; empty for setup, which gets no GPU. */
  readonly gpuIndices: readonly number[];
  /** Variables to pass by name (their values come from the runtime process's environment). */
  readonly envNames: readonly string[];
  /** Host directories mounted at the same path inside (e.g. a local checkpoint directory). */
  readonly mounts: readonly string[];
  /** What runs in the container. */
  readonly command: readonly string[];
}

export const containerRunArgs = (run: ContainerRun): string[] => {
  const args = ['run', '--rm', '--init', '--name', run.name];
  if (run.gpuIndices.length > 0) args.push('--gpus', gpuDevices(run.gpuIndices));
  args.push('--network', 'host', '--ipc', 'host');
  if (run.hostDir !== null) args.push('-v', `${run.hostDir}:${CONTAINER_WORKDIR}`, '-w', CONTAINER_WORKDIR);
  for (const dir of run.mounts) args.push('-v', `${dir}:${dir}`);
  for (const name of [...run.envNames].sort()) {
    if (name !== 'CUDA_VISIBLE_DEVICES') args.push('-e', name);
  }
  if (run.gpuIndices.length > 0)
    args.push('-e', `CUDA_VISIBLE_DEVICES=${run.gpuIndices.map((_, i) => i).join(',')}`);
  args.push(run.image, ...run.command);
  return args;
};

/** `--gpus` value: `device=3`, or `"device=0,1"` (quoted: the runtime reads the flag as CSV). */
export const gpuDevices = (indices: readonly number[]): string =>
  indices.length === 1 ? `device=${indices[0]}` : `"device=${indices.join(',')}"`;

/** Removes (and kills) a worker's container: a SIGKILL reaches only the runtime client, not the container. */
export const containerRemoveArgs = (name: string): string[] => ['rm', '-f', name];

/** A container name from a worker ref (`<job>/<generation>/<rank>`): the runtime allows [a-zA-Z0-9_.-]. */
export const containerName = (ref: string): string =>
  `tessera-${ref.replace(/[^a-zA-Z0-9_.-]+/g, '-')}`.slice(0, 128);

/** Host directories a worker's environment points at that must be visible inside the container. */
export const checkpointMounts = (env: Readonly<Record<string, string>>): string[] => {
  const uri = env.TESSERA_CHECKPOINT_URI;
  if (!uri?.startsWith('file://')) return [];
  return [decodeURIComponent(new URL(uri).pathname)];
};

/** The setup commands as one shell script that stops at the first failing command. */
export const setupScript = (setup: readonly string[]): string => ['set -e', ...setup].join('\n');
