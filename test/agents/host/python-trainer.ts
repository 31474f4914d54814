/**
 * Running the PyTorch EasyScale trainer (agents/trainer, docs/trainer-protocol.md) from the host-agent
 * tests: torch detection, desired workers for its small CNN job, a straight reference run and a
 * bitwise checkpoint comparison (not a test file itself).
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { DesiredJob } from '../../../lib/protocol/desired-state.ts';
import { fileUri, freePort, killQuietly } from './helpers.ts';

export const PYTHON = '/usr/bin/python3';
export const TRAINER_DIR = resolve(import.meta.dirname, '../../../agents/trainer');

/** The job's own arguments; a short collective timeout so a lost peer cannot hang the suite for 5 min. */
export const SMALL_CNN_ARGS = ['--model', 'small-cnn', '--batch-size', '8', '--collective-timeout', '60'];

/** What the Python workers need besides the protocol variables the agent sets. */
export const PYTHON_WORKER_ENV: Record<string, string> = {
  PYTHONPATH: TRAINER_DIR, // the agent starts workers in its own cwd, not in agents/trainer
  PYTHONDONTWRITEBYTECODE: '1', // no __pycache__ in the source tree
  OMP_NUM_THREADS: '1',
  GLOO_SOCKET_IFNAME: 'lo', // gloo's data connections stay on loopback
  TESSERA_DEVICE: 'cpu', // the simulated GPUs are not CUDA devices
};

/** Why the Python trainer cannot run here, or undefined when `import torch` works. */
export function torchMissingReason(): string | undefined {
  if (!existsSync(PYTHON)) {
    return `${PYTHON} not found; install Debian's python3 and python3-torch to run the Python trainer tests`;
  }
  const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status === 0) return undefined;
  const detail = (probe.stderr || probe.error?.message || '').trim().split('\n').at(-1) ?? '';
  return `\`${PYTHON} -c 'import torch'\` failed (${detail}); install it with \`apt-get install -y python3-torch\``;
}

export interface PythonJobOptions {
  jobId: string;
  jobGeneration: number;
  maxP: number;
  /** GPU of each rank (one GPU per worker). */
  gpus: number[];
  /** ESTs (virtual ranks) of each rank. */
  ests: number[][];
  totalSteps: number;
  checkpointDir: string;
  resumeStep: number;
  masterPort: number;
}

/** Desired state of one job running the Python trainer's small CNN on CPU. */
export function pythonJob(options: PythonJobOptions): DesiredJob {
  return {
    jobId: options.jobId,
    jobGeneration: options.jobGeneration,
    worldSize: options.gpus.length,
    maxP: options.maxP,
    totalSteps: options.totalSteps,
    checkpointUri: fileUri(options.checkpointDir),
    resumeStep: options.resumeStep,
    masterAddr: '127.0.0.1',
    masterPort: options.masterPort,
    command: [PYTHON, '-m', 'tessera_trainer.run', ...SMALL_CNN_ARGS],
    env: PYTHON_WORKER_ENV,
    workers: options.gpus.map((gpu, rank) => ({
      rank,
      localRank: rank,
      gpuIndices: [gpu],
      ests: options.ests[rank]!,
    })),
  };
}

/**
 * Runs the job start to finish without the agent and without any stop: one worker per entry of
 * `ests`, the protocol environment set by hand. Every pid goes into `pids` (for the orphan check);
 * workers still running at the deadline are killed. Resolves with each worker's exit code.
 */
export async function runStraight(options: {
  jobId: string;
  maxP: number;
  ests: number[][];
  totalSteps: number;
  checkpointDir: string;
  pids: Set<number>;
  timeoutMs: number;
}): Promise<{ codes: (number | null)[]; stderr: string[] }> {
  const port = await freePort();
  const workers = options.ests.map((ests, rank) => {
    const stderr: Buffer[] = [];
    const child = spawn(PYTHON, ['-m', 'tessera_trainer.run', ...SMALL_CNN_ARGS], {
      detached: true, // own process group, so killQuietly takes anything it started with it
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...PYTHON_WORKER_ENV,
        TESSERA_JOB_ID: options.jobId,
        TESSERA_GENERATION: '0',
        TESSERA_RANK: String(rank),
        TESSERA_WORLD_SIZE: String(options.ests.length),
        TESSERA_LOCAL_RANK: String(rank),
        TESSERA_MASTER_ADDR: '127.0.0.1',
        TESSERA_MASTER_PORT: String(port),
        TESSERA_MAX_P: String(options.maxP),
        TESSERA_ESTS: ests.join(','),
        TESSERA_TOTAL_STEPS: String(options.totalSteps),
        TESSERA_CHECKPOINT_URI: fileUri(options.checkpointDir),
      },
    });
    if (child.pid !== undefined) options.pids.add(child.pid);
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const exited = new Promise<number | null>((resolveExit) => {
      child.once('error', () => resolveExit(null));
      child.once('close', (code) => resolveExit(code));
    });
    return { child, stderr, exited };
  });
  const timer = setTimeout(() => {
    for (const { child } of workers) if (child.pid !== undefined) killQuietly(child.pid);
  }, options.timeoutMs);
  try {
    const codes = await Promise.all(workers.map((worker) => worker.exited));
    return { codes, stderr: workers.map((worker) => Buffer.concat(worker.stderr).toString('utf8')) };
  } finally {
    clearTimeout(timer);
  }
}

// Loads a checkpoint step (state.pt: parameters, BatchNorm buffers, optimizer, scheduler; and every
// est-<v>.pt: the ESTs' RNG contexts) and compares two of them tensor by tensor, byte for byte, with
// the trainer tests' own comparison (tests/harness.py first_difference).
const COMPARE_SCRIPT = `
import json, sys
from pathlib import Path
import torch
from tests.harness import first_difference, load_state

def exact(value):
    # NumPy arrays (the NumPy RNG state) as dtype, shape and raw bytes: first_difference compares
    # tensors byte for byte but would call == on an array.
    if isinstance(value, dict):
        return {key: exact(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [exact(item) for item in value]
    if not isinstance(value, torch.Tensor) and hasattr(value, "dtype") and hasattr(value, "tobytes"):
        return ("array", str(value.dtype), tuple(getattr(value, "shape", ())), value.tobytes())
    return value

def load(directory, step):
    step_dir = Path(directory) / f"step-{step}"
    files = {"state.pt": load_state(Path(directory), int(step))}
    for est in sorted(step_dir.glob("est-*.pt")):
        files[est.name] = torch.load(est, map_location="cpu")
    return exact(files)

a_dir, a_step, b_dir, b_step = sys.argv[1:5]
print(json.dumps({"difference": first_difference(load(a_dir, a_step), load(b_dir, b_step))}))
`;

export interface CheckpointRef {
  dir: string;
  step: number;
}

/** Null when both checkpoints are bitwise identical, else where they first differ. */
export async function checkpointDifference(a: CheckpointRef, b: CheckpointRef): Promise<string | null> {
  const { stdout } = await promisify(execFile)(
    PYTHON,
    ['-c', COMPARE_SCRIPT, a.dir, String(a.step), b.dir, String(b.step)],
    { cwd: TRAINER_DIR, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 60_000 },
  );
  return (JSON.parse(stdout) as { difference: string | null }).difference;
}

export interface CheckpointMeta {
  step: number;
  generation: number;
  maxP: number;
  writtenBy: { worldSize: number; ests: number[][] };
}

export function readCheckpointMeta(checkpoint: CheckpointRef): CheckpointMeta {
  return JSON.parse(
    readFileSync(join(checkpoint.dir, `step-${checkpoint.step}`, 'meta.json'), 'utf8'),
  ) as CheckpointMeta;
}
