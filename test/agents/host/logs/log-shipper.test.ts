import assert from 'node:assert/strict';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../../../agents/host/logger.ts';
import { LogShipper, type LogSink } from '../../../../agents/host/logs/log-shipper.ts';
import { type LogChunk, logChunkSchema } from '../../../../lib/protocol/log-chunk.ts';
import { tempDir } from '../helpers.ts';

/** An in-memory store that can be told to fail (unit test of the shipper alone). */
class MemorySink implements LogSink {
  readonly objects = new Map<string, LogChunk>();
  failing = false;
  /** The object is stored but the answer is lost (the agent cannot know it landed). */
  answerLost = false;
  puts = 0;
  async put(key: string, body: string): Promise<void> {
    this.puts++;
    if (this.failing) throw new Error('S3 unavailable');
    this.objects.set(key, logChunkSchema.parse(JSON.parse(body)));
    if (this.answerLost) throw new Error('connection reset');
  }
  chunks(): [string, LogChunk][] {
    return [...this.objects.entries()].sort(([a], [b]) => a.localeCompare(b));
  }
  texts(): string[] {
    return this.chunks().flatMap(([, chunk]) => chunk.lines.map((l) => `${l.stream}:${l.text}`));
  }
}

function setup(dir: string, sink: LogSink, clock: { t: number }) {
  return new LogShipper({
    sink,
    hostId: 'host-1',
    statePath: join(dir, 'log-shipping.json'),
    clock: { now: () => clock.t * 1000 },
    logger: silentLogger,
    limits: { flushSeconds: 5, maxBytes: 1024 },
    retrySeconds: 2,
  });
}

/** What each case gets: a fresh directory (removed after), an in-memory sink and a clock (seconds) it moves. */
interface Bench {
  readonly dir: string;
  readonly sink: MemorySink;
  readonly clock: { t: number };
  /** A shipper as an agent starts it on this directory (a second call is the agent's successor). */
  shipper(): LogShipper;
}

const withShipper = async (body: (bench: Bench) => Promise<void>): Promise<void> => {
  const dir = tempDir();
  try {
    const sink = new MemorySink();
    const clock = { t: 1_700_000_000 };
    await body({ dir: dir.path, sink, clock, shipper: () => setup(dir.path, sink, clock) });
  } finally {
    dir.cleanup();
  }
};

/** Moves the clock by `seconds`, then one tick of the agent's loop and its uploads. */
const tickAfter = async (shipper: LogShipper, clock: { t: number }, seconds = 0): Promise<void> => {
  clock.t += seconds;
  shipper.tick();
  await shipper.idle();
};

const run = (dir: string) => ({
  ref: 'job-a/g1/a1/r0',
  jobId: 'job-a',
  rank: 3,
  jobGeneration: 1,
  stdoutPath: join(dir, 'out'),
  stderrPath: join(dir, 'err'),
});

test('lines wait up to the flush interval, then ship in one chunk tagged by stream', () =>
  withShipper(async ({ dir, sink, clock, shipper: start }) => {
    const shipper = start();
    shipper.track(run(dir));
    writeFileSync(join(dir, 'out'), 'step 1\nstep 2\n');
    writeFileSync(join(dir, 'err'), 'warning\n');
    await tickAfter(shipper, clock);
    assert.equal(sink.objects.size, 0, 'nothing before the flush interval');
    await tickAfter(shipper, clock, 5);
    const [[key, chunk]] = sink.chunks() as [[string, LogChunk]];
    assert.equal(key, 'jobs/job-a/logs/3/1700000000.000-000000');
    assert.deepEqual(sink.texts(), ['stdout:step 1', 'stdout:step 2', 'stderr:warning']);
    assert.equal(chunk.final, false);
    assert.equal(chunk.lines[0]!.at, 1_700_000_000, 'read at the first tick, in seconds');
    assert.equal(chunk.hostId, 'host-1');
  }));

test('output past the size limit ships at once in chunks of at most the limit', () =>
  withShipper(async ({ dir, sink, clock, shipper: start }) => {
    const shipper = start();
    shipper.track(run(dir));
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    writeFileSync(join(dir, 'out'), `${lines.join('\n')}\n`);
    await tickAfter(shipper, clock);
    const chunks = sink.chunks();
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
    assert.deepEqual(
      chunks.map(([, c]) => c.seq),
      chunks.map((_, i) => i),
    );
    for (const [, chunk] of chunks)
      assert.ok(JSON.stringify(chunk.lines).length <= 1024 + 200, 'about the size limit');
    // The tail shorter than the limit waits for the interval.
    const shipped = sink.texts().length;
    assert.ok(shipped < 40);
    await tickAfter(shipper, clock, 5);
    assert.deepEqual(
      sink.texts(),
      lines.map((l) => `stdout:${l}`),
    );
  }));

test('a failed upload keeps its lines, backs off and retries; nothing lost, nothing twice', () =>
  withShipper(async ({ dir, sink, clock, shipper: start }) => {
    const shipper = start();
    shipper.track(run(dir));
    writeFileSync(join(dir, 'out'), 'a\nb\n');
    await tickAfter(shipper, clock);
    sink.failing = true;
    await tickAfter(shipper, clock, 5);
    assert.equal(sink.puts, 1);
    appendFileSync(join(dir, 'out'), 'c\n');
    await tickAfter(shipper, clock, 1); // inside the back-off: no attempt
    assert.equal(sink.puts, 1);
    sink.failing = false;
    await tickAfter(shipper, clock, 1);
    assert.deepEqual(sink.texts(), ['stdout:a', 'stdout:b'], 'the retry is the same chunk');
    await tickAfter(shipper, clock, 5);
    assert.deepEqual(sink.texts(), ['stdout:a', 'stdout:b', 'stdout:c']);
    assert.equal(sink.objects.size, 2);
  }));

test('an agent that dies with lines read but not shipped: the next one ships them from the offsets on disk', () =>
  withShipper(async ({ dir, sink, clock, shipper: start }) => {
    const first = start();
    first.track(run(dir));
    writeFileSync(join(dir, 'out'), 'shipped 1\nshipped 2\n');
    await tickAfter(first, clock);
    await tickAfter(first, clock, 5);
    assert.deepEqual(sink.texts(), ['stdout:shipped 1', 'stdout:shipped 2']);
    appendFileSync(join(dir, 'out'), 'read, not shipped\n');
    await tickAfter(first, clock);
    sink.failing = true;
    await tickAfter(first, clock, 5);
    await first.stop(); // the agent dies here

    sink.failing = false;
    appendFileSync(join(dir, 'out'), 'written while no agent ran\nlast words without newline');
    const second = start();
    second.load();
    assert.deepEqual(second.refs(), ['job-a/g1/a1/r0']);
    second.exitedUnless(new Set()); // its worker is gone too
    await second.idle();
    assert.deepEqual(sink.texts(), [
      'stdout:shipped 1',
      'stdout:shipped 2',
      'stdout:read, not shipped',
      'stdout:written while no agent ran',
      'stdout:last words without newline',
    ]);
    const chunks = sink.chunks();
    assert.equal(chunks.at(-1)![1].final, true);
    assert.deepEqual(second.refs(), [], 'the run is closed');
  }));

test('an upload that landed unconfirmed before the agent died: its successor re-uploads those same lines under that name', () =>
  withShipper(async ({ dir, sink, clock, shipper: start }) => {
    const first = start();
    first.track(run(dir));
    writeFileSync(join(dir, 'out'), 'a\nb\n');
    await tickAfter(first, clock);
    sink.answerLost = true;
    await tickAfter(first, clock, 5);
    await first.stop(); // the agent dies not knowing chunk 0 landed
    sink.answerLost = false;
    appendFileSync(join(dir, 'out'), 'c\n');
    const second = start();
    second.load();
    second.exitedUnless(new Set());
    await second.idle();
    assert.deepEqual(
      sink
        .chunks()
        .map(([key, chunk]) => [key.split('/').at(-1), chunk.lines.map((l) => l.text), chunk.final]),
      [
        ['1700000000.000-000000', ['a', 'b'], false],
        ['1700000000.000-000001', ['c'], true],
      ],
    );
  }));

test('a worker that printed nothing still ends with an empty final chunk; released files go once shipped', () =>
  withShipper(async ({ dir, sink, shipper: start }) => {
    const shipper = start();
    const spec = run(dir);
    shipper.track(spec);
    writeFileSync(spec.stdoutPath, '');
    writeFileSync(spec.stderrPath, '');
    sink.failing = true;
    shipper.exited(spec.ref);
    await shipper.idle();
    shipper.release('job-a');
    assert.ok(shipper.unshippedPaths('job-a').has(spec.stdoutPath));
    assert.ok(existsSync(spec.stdoutPath), 'kept while unshipped');
    sink.failing = false;
    assert.equal(await shipper.flush(5), true);
    const [[, chunk]] = sink.chunks() as [[string, LogChunk]];
    assert.deepEqual(chunk.lines, []);
    assert.equal(chunk.final, true);
    assert.equal(existsSync(spec.stdoutPath), false);
    assert.equal(existsSync(spec.stderrPath), false);
  }));
