#!/usr/bin/env node
// Simulated trainer: implements the Tessera trainer protocol (docs/host-agent.md,
// docs/trainer-protocol.md) without a GPU, for local mode and the agent's tests. Plain JavaScript
// so it starts in tens of milliseconds (tests start many of them).
//
//   node agents/host/sim-trainer.mjs [--step-ms N] [--batch-size B] [--step-log FILE]
//                                    [--crash-at-step S [--crash-rank R] [--crash-times K]]
//                                    [--checkpoint-bytes N]   (padding per checkpoint, to measure I/O)
//
// Workers of one job run in lockstep: rank 0 listens on TESSERA_MASTER_ADDR:TESSERA_MASTER_PORT, the
// others connect, and after every step they all-reduce the "checkpoint requested" / "stop requested"
// flags, so every worker acts on the same global-step boundary. The "model" is a 32-bit state mixed
// once per global step: it depends only on the seed and the step count, never on the world size, so
// a run that was rescaled ends in the same state as one that was not (what D1 consistency promises).
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXIT_FINISHED = 0;
const EXIT_CRASH = 1;
const EXIT_BAD_CONFIGURATION = 2;
const EXIT_CHECKPOINTED = 75;
const RENDEZVOUS_TIMEOUT_MS = 30_000;

function report(event) {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function log(message) {
  process.stderr.write(`sim-trainer: ${message}\n`);
}

function die(code, message) {
  report({ event: 'error', message });
  log(message);
  process.exit(code);
}

class ConfigError extends Error {}

// Installed before anything else: a request that arrives during start-up must not kill the process
// (the default action of SIGUSR1/SIGUSR2 is to terminate). It is honoured at the first boundary.
const control = { checkpoint: false, stop: false };
process.on('SIGUSR1', () => {
  control.checkpoint = true;
});
for (const signal of ['SIGUSR2', 'SIGTERM']) {
  process.on(signal, () => {
    control.checkpoint = true;
    control.stop = true;
  });
}

// ---------------------------------------------------------------- configuration

function parseArgs(argv) {
  const options = {
    stepMs: 50,
    batchSize: 32,
    stepLog: null,
    crashAtStep: null,
    crashRank: null,
    crashTimes: Infinity,
    checkpointBytes: 0,
  };
  const names = {
    '--step-ms': 'stepMs',
    '--batch-size': 'batchSize',
    '--step-log': 'stepLog',
    '--crash-at-step': 'crashAtStep',
    '--crash-rank': 'crashRank',
    '--crash-times': 'crashTimes',
    '--checkpoint-bytes': 'checkpointBytes',
  };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    const key = names[flag];
    const value = argv[index + 1];
    if (!key) throw new ConfigError(`unknown argument ${flag}`);
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    index++;
    if (key === 'stepLog') {
      options.stepLog = value;
      continue;
    }
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0)
      throw new ConfigError(`${flag}: "${value}" is not a non-negative integer`);
    options[key] = number;
  }
  return options;
}

function intEnv(env, name, { min = 0, fallback } = {}) {
  const text = env[name];
  if (text === undefined || text === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required`);
    return fallback;
  }
  if (!/^-?\d+$/.test(text)) throw new ConfigError(`${name}: "${text}" is not an integer`);
  const value = Number(text);
  if (value < min) throw new ConfigError(`${name}: ${value} must be at least ${min}`);
  return value;
}

function readConfig(env) {
  const jobId = env.TESSERA_JOB_ID;
  if (!jobId) throw new ConfigError('TESSERA_JOB_ID is required');
  const worldSize = intEnv(env, 'TESSERA_WORLD_SIZE', { min: 1 });
  const rank = intEnv(env, 'TESSERA_RANK');
  if (rank >= worldSize)
    throw new ConfigError(`TESSERA_RANK ${rank} must be below TESSERA_WORLD_SIZE ${worldSize}`);
  const maxP = intEnv(env, 'TESSERA_MAX_P', { min: 1, fallback: worldSize });
  // Only an elastic job (TESSERA_MAX_P given) is bound to its logical worker count; a plain data-parallel job may
  // resume at another world size, as a DDP job does after the scheduler rescales it.
  const elastic = env.TESSERA_MAX_P !== undefined;
  const ests = env.TESSERA_ESTS ? env.TESSERA_ESTS.split(',').map((text) => Number(text)) : [rank];
  for (const est of ests) {
    if (!Number.isInteger(est) || est < 0 || est >= maxP)
      throw new ConfigError(`TESSERA_ESTS: "${env.TESSERA_ESTS}" must list ESTs below ${maxP}`);
  }
  const uri = env.TESSERA_CHECKPOINT_URI;
  if (!uri) throw new ConfigError('TESSERA_CHECKPOINT_URI is required');
  let checkpointDir;
  if (uri.startsWith('file://')) checkpointDir = fileURLToPath(uri);
  else if (uri.startsWith('/')) checkpointDir = uri;
  else
    throw new ConfigError(
      `TESSERA_CHECKPOINT_URI: the simulated trainer only supports file:// URIs, got "${uri}"`,
    );
  const consistency = env.TESSERA_CONSISTENCY ?? 'D1';
  if (consistency !== 'D0' && consistency !== 'D1')
    throw new ConfigError(`TESSERA_CONSISTENCY: "${consistency}" must be D0 or D1`);
  const device = env.TESSERA_DEVICE ?? 'cpu';
  if (device !== 'cpu' && device !== 'cuda')
    throw new ConfigError(`TESSERA_DEVICE: "${device}" must be cpu or cuda`);
  const masterPort = intEnv(env, 'TESSERA_MASTER_PORT', { min: 1, fallback: 0 });
  if (worldSize > 1 && (masterPort < 1 || masterPort > 65535))
    throw new ConfigError('TESSERA_MASTER_PORT must be a port (1-65535)');
  return {
    jobId,
    generation: intEnv(env, 'TESSERA_GENERATION', { fallback: 0 }),
    rank,
    worldSize,
    localRank: intEnv(env, 'TESSERA_LOCAL_RANK', { fallback: rank }),
    maxP,
    elastic,
    ests,
    totalSteps: intEnv(env, 'TESSERA_TOTAL_STEPS', { min: 1 }),
    checkpointUri: uri.replace(/\/+$/, ''),
    checkpointDir,
    resumeStep: intEnv(env, 'TESSERA_RESUME_STEP', { min: -1, fallback: -1 }),
    seed: intEnv(env, 'TESSERA_SEED', { fallback: 0 }),
    reportEvery: intEnv(env, 'TESSERA_REPORT_EVERY', { min: 1, fallback: 1 }),
    checkpointEvery: intEnv(env, 'TESSERA_CHECKPOINT_EVERY', { fallback: 0 }),
    masterAddr: env.TESSERA_MASTER_ADDR || '127.0.0.1',
    masterPort,
  };
}

// ---------------------------------------------------------------- the "model"

/** One training step of the simulated model: a 32-bit mix of the previous state and the step. */
function trainStep(state, step) {
  let x = (state ^ Math.imul(step, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

function writeDurably(path, text) {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function stepDir(config, step) {
  return join(config.checkpointDir, `step-${step}`);
}

function loadCheckpoint(config) {
  if (config.resumeStep < 0) return { step: 0, state: config.seed >>> 0 };
  const dir = stepDir(config, config.resumeStep);
  if (!existsSync(join(dir, 'COMPLETE'))) {
    throw new ConfigError(`TESSERA_RESUME_STEP ${config.resumeStep}: ${dir} is not a complete checkpoint`);
  }
  const saved = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
  if (saved.step !== config.resumeStep) throw new ConfigError(`${dir}/state.json holds step ${saved.step}`);
  if (config.elastic && saved.maxP !== config.maxP)
    throw new ConfigError(`${dir} was written for maxP ${saved.maxP}, not ${config.maxP}`);
  return { step: saved.step, state: saved.state };
}

// ---------------------------------------------------------------- lockstep collective over TCP

/** JSON lines over a socket, read as an async queue; a closed socket fails every pending read. */
class Channel {
  constructor(socket) {
    this.socket = socket;
    this.buffer = '';
    this.messages = [];
    this.waiters = [];
    this.closed = false;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      this.buffer += chunk.toString('utf8');
      for (let at = this.buffer.indexOf('\n'); at !== -1; at = this.buffer.indexOf('\n')) {
        const message = JSON.parse(this.buffer.slice(0, at));
        this.buffer = this.buffer.slice(at + 1);
        const waiter = this.waiters.shift();
        if (waiter) waiter.resolve(message);
        else this.messages.push(message);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('peer disconnected'));
    });
  }

  send(message) {
    this.socket.write(`${JSON.stringify(message)}\n`);
  }

  next() {
    const message = this.messages.shift();
    if (message !== undefined) return Promise.resolve(message);
    if (this.closed) return Promise.reject(new Error('peer disconnected'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Rank 0 gathers every rank's flags and broadcasts their OR; every rank gets the same answer. */
class Collective {
  static async connect(config) {
    const collective = new Collective(config);
    if (config.worldSize > 1) {
      await withTimeout(
        config.rank === 0 ? collective.serve() : collective.join(),
        RENDEZVOUS_TIMEOUT_MS,
        'rendezvous',
      );
    }
    return collective;
  }

  constructor(config) {
    this.config = config;
    this.peers = []; // rank 0: channels to ranks 1..n-1
    this.master = null; // other ranks: channel to rank 0
    this.server = null;
  }

  serve() {
    const { masterAddr, masterPort, worldSize, generation, jobId } = this.config;
    return new Promise((resolve, reject) => {
      this.server = net.createServer((socket) => {
        const channel = new Channel(socket);
        channel.next().then(
          (hello) => {
            if (
              hello.jobId !== jobId ||
              hello.generation !== generation ||
              this.peers.some((peer) => peer.rank === hello.rank)
            ) {
              channel.send({ rejected: `expected job ${jobId} generation ${generation}` });
              socket.end();
              return;
            }
            channel.rank = hello.rank;
            this.peers.push(channel);
            if (this.peers.length === worldSize - 1) {
              for (const peer of this.peers) peer.send({ welcome: true });
              resolve();
            }
          },
          () => {},
        );
      });
      this.server.on('error', reject);
      this.server.listen(masterPort, masterAddr);
    });
  }

  async join() {
    const { masterAddr, masterPort, rank, generation, jobId } = this.config;
    for (;;) {
      try {
        const socket = await new Promise((resolve, reject) => {
          const attempt = net.connect(masterPort, masterAddr, () => resolve(attempt));
          attempt.once('error', reject);
        });
        this.master = new Channel(socket);
        this.master.send({ jobId, generation, rank });
        const answer = await this.master.next();
        if (answer.welcome) return;
        throw new Error(answer.rejected ?? 'rejected by rank 0');
      } catch {
        // Rank 0 not listening yet, or still the previous generation's: retry until the rendezvous times out.
        this.master?.socket.destroy();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /** All-reduce (logical OR) of the control flags at the end of `step`. */
  async agree(step, flags) {
    if (this.config.worldSize === 1) return flags;
    if (this.config.rank !== 0) {
      this.master.send({ step, ...flags });
      return this.master.next();
    }
    const result = { ...flags };
    for (const peer of this.peers) {
      const theirs = await peer.next();
      if (theirs.step !== step) throw new Error(`rank ${peer.rank} is at step ${theirs.step}, not ${step}`);
      result.checkpoint ||= theirs.checkpoint;
      result.stop ||= theirs.stop;
    }
    for (const peer of this.peers) peer.send({ step, ...result });
    return result;
  }

  /** Everyone wrote its part of checkpoint `step`; rank 0 commits it, then releases the others. */
  async commit(step, commitOnRank0) {
    if (this.config.worldSize === 1) return commitOnRank0();
    if (this.config.rank !== 0) {
      this.master.send({ written: step });
      const answer = await this.master.next();
      if (answer.committed !== step) throw new Error(`expected commit of step ${step}`);
      return;
    }
    for (const peer of this.peers) {
      const message = await peer.next();
      if (message.written !== step) throw new Error(`rank ${peer.rank} did not write step ${step}`);
    }
    commitOnRank0();
    for (const peer of this.peers) peer.send({ committed: step });
  }

  close() {
    for (const peer of this.peers) peer.socket.destroy();
    this.master?.socket.destroy();
    this.server?.close();
  }
}

// ---------------------------------------------------------------- training loop

/** Stand-in for model weights: `bytes` of padding in the step directory, so checkpoint I/O can be measured. */
function writePadding(dir, bytes) {
  if (bytes <= 0) return;
  const fd = openSync(join(dir, 'weights.bin'), 'w');
  try {
    const block = Buffer.alloc(Math.min(bytes, 8 * 1024 * 1024), 0x5a);
    for (let written = 0; written < bytes; ) {
      const length = Math.min(block.length, bytes - written);
      writeSync(fd, block, 0, length);
      written += length;
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function checkpoint(config, collective, step, state, options) {
  const dir = stepDir(config, step);
  const uri = `${config.checkpointUri}/step-${step}`;
  if (existsSync(join(dir, 'COMPLETE'))) {
    // Already written (a periodic checkpoint and a requested one on the same boundary).
    return collective.commit(step, () => report({ event: 'checkpoint', step, uri }));
  }
  mkdirSync(dir, { recursive: true });
  writeDurably(
    join(dir, `rank-${config.rank}.json`),
    JSON.stringify({ step, rank: config.rank, ests: config.ests }),
  );
  return collective.commit(step, () => {
    writePadding(dir, options.checkpointBytes);
    writeDurably(
      join(dir, 'state.json'),
      JSON.stringify({ step, state, maxP: config.maxP, worldSize: config.worldSize }),
    );
    writeDurably(join(dir, 'COMPLETE'), `${step}\n`); // last: only now is the checkpoint valid
    report({ event: 'checkpoint', step, uri });
  });
}

function maybeCrash(config, options, step) {
  if (options.crashAtStep !== step) return;
  if (options.crashRank !== null && options.crashRank !== config.rank) return;
  mkdirSync(config.checkpointDir, { recursive: true });
  const counter = join(config.checkpointDir, `sim-crashes-rank-${config.rank}`);
  const crashes = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
  if (crashes >= options.crashTimes) return;
  writeDurably(counter, String(crashes + 1));
  die(EXIT_CRASH, `simulated crash at step ${step} (crash ${crashes + 1})`);
}

async function train(config, options) {
  let { step, state } = loadCheckpoint(config);
  const collective = await Collective.connect(config);
  report({ event: 'started', step, rank: config.rank, ests: config.ests });
  const samplesPerStep = options.batchSize * config.ests.length;
  while (step < config.totalSteps) {
    const began = performance.now();
    maybeCrash(config, options, step + 1);
    await new Promise((resolve) => setTimeout(resolve, options.stepMs)); // "compute"
    const flags = { checkpoint: control.checkpoint, stop: control.stop };
    control.checkpoint = false;
    control.stop = false;
    const agreed = await collective.agree(step + 1, flags);
    step += 1;
    state = trainStep(state, step);
    if (options.stepLog) {
      const { jobId, generation, rank } = config;
      const line = { jobId, generation, rank, step, state, pid: process.pid, time: Date.now() / 1000 }; // epoch s
      appendFileSync(options.stepLog, `${JSON.stringify(line)}\n`);
    }
    const stepTime = (performance.now() - began) / 1000;
    if (step % config.reportEvery === 0 || step === config.totalSteps) {
      report({
        event: 'progress',
        step,
        stepTime,
        samplesPerSecond: samplesPerStep / stepTime,
        rank: config.rank,
      });
    }
    const final = step === config.totalSteps;
    const periodic = config.checkpointEvery > 0 && step % config.checkpointEvery === 0;
    if (final || periodic || agreed.checkpoint) await checkpoint(config, collective, step, state, options);
    if (!final && agreed.stop) {
      collective.close();
      process.exit(EXIT_CHECKPOINTED);
    }
  }
  report({ event: 'finished', step });
  collective.close();
  process.exit(EXIT_FINISHED);
}

let config;
let options;
try {
  options = parseArgs(process.argv.slice(2));
  config = readConfig(process.env);
} catch (error) {
  die(EXIT_BAD_CONFIGURATION, error.message);
}
train(config, options).catch((error) => {
  if (error instanceof ConfigError) die(EXIT_BAD_CONFIGURATION, error.message);
  die(EXIT_CRASH, `rank ${config.rank}: ${error.message}`);
});
