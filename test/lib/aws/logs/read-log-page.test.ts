import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidLogCursorError } from '../../../../lib/aws/logs/log-cursor.ts';
import type { LogChunkStore } from '../../../../lib/aws/logs/log-store.ts';
import { type LogPage, readLogPage } from '../../../../lib/aws/logs/read-log-page.ts';
import { type LogChunk, logChunkName } from '../../../../lib/protocol/log-chunk.ts';

/** Chunks in memory, listed in name order as S3 lists keys (unit test of the paging alone). */
class MemoryStore implements LogChunkStore {
  readonly chunks = new Map<number, Map<string, LogChunk>>();
  gets = 0;
  add(rank: number, runStart: number, seq: number, texts: string[], final = false): void {
    const chunk: LogChunk = {
      version: 1,
      jobId: 'job-a',
      rank,
      jobGeneration: 1,
      hostId: 'h',
      seq,
      final,
      lines: texts.map((text, i) => ({ at: runStart + seq + i / 100, stream: 'stdout', text })),
    };
    if (!this.chunks.has(rank)) this.chunks.set(rank, new Map());
    this.chunks.get(rank)!.set(logChunkName(runStart, seq), chunk);
  }
  async listRanks() {
    return [...this.chunks.keys()].sort((a, b) => a - b);
  }
  async listChunks(_job: string, rank: number, after: string | null, max: number) {
    return [...(this.chunks.get(rank)?.keys() ?? [])]
      .sort()
      .filter((name) => after === null || name > after)
      .slice(0, max);
  }
  async getChunk(_job: string, rank: number, name: string) {
    this.gets++;
    return this.chunks.get(rank)?.get(name) ?? null;
  }
}

const texts = (page: LogPage) => page.lines.map((l) => `${l.rank}:${l.text}`);

/** Every line by following cursors page after page. */
const readAll = async (store: LogChunkStore, options: { rank?: number; limit: number }) => {
  const pages: LogPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await readLogPage(store, { jobId: 'job-a', ...options, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.cursor;
  } while (pages.at(-1)!.more);
  return pages;
};

describe('readLogPage', () => {
  test('pages of `limit` lines, lowest rank first, each rank in writing order across restarts', async () => {
    const store = new MemoryStore();
    store.add(0, 1000, 0, ['a0', 'a1', 'a2']);
    store.add(0, 1000, 1, ['a3'], true);
    store.add(0, 2000, 0, ['b0', 'b1'], true); // the rank restarted (a later run)
    store.add(1, 1000, 0, ['c0', 'c1', 'c2', 'c3', 'c4'], true);
    const pages = await readAll(store, { limit: 4 });
    assert.deepEqual(pages.map(texts), [
      ['0:a0', '0:a1', '0:a2', '0:a3'],
      ['0:b0', '0:b1', '1:c0', '1:c1'],
      ['1:c2', '1:c3', '1:c4'],
    ]);
    assert.deepEqual(
      pages.map((p) => p.more),
      [true, true, false],
    );
    assert.equal(pages.at(-1)!.drained, true);
  });

  test('the rank filter reads one rank only', async () => {
    const store = new MemoryStore();
    store.add(0, 1000, 0, ['a0']);
    store.add(1, 1000, 0, ['c0', 'c1']);
    const [page] = await readAll(store, { rank: 1, limit: 100 });
    assert.deepEqual(texts(page!), ['1:c0', '1:c1']);
    assert.equal(page!.drained, false, 'no final chunk yet');
  });

  test('polling with the last cursor returns only what was written since, in every rank', async () => {
    const store = new MemoryStore();
    store.add(0, 1000, 0, ['a0']);
    store.add(1, 1000, 0, ['c0']);
    const first = await readLogPage(store, { jobId: 'job-a', limit: 100 });
    assert.deepEqual(texts(first), ['0:a0', '1:c0']);
    const idle = await readLogPage(store, { jobId: 'job-a', limit: 100, cursor: first.cursor });
    assert.deepEqual(texts(idle), []);
    assert.equal(idle.more, false);
    store.add(0, 1000, 1, ['a1'], true);
    store.add(1, 1000, 1, ['c1'], true);
    store.add(2, 1500, 0, ['d0'], true);
    const later = await readLogPage(store, { jobId: 'job-a', limit: 100, cursor: idle.cursor });
    assert.deepEqual(texts(later), ['0:a1', '1:c1', '2:d0']);
    assert.equal(later.drained, true);
  });

  test('a page stops inside a chunk and the next one resumes at the following line', async () => {
    const store = new MemoryStore();
    store.add(0, 1000, 0, ['x0', 'x1', 'x2', 'x3', 'x4']);
    const pages = await readAll(store, { limit: 2 });
    assert.deepEqual(pages.flatMap(texts), ['0:x0', '0:x1', '0:x2', '0:x3', '0:x4']);
  });

  test('a page reads at most maxChunks chunks', async () => {
    const store = new MemoryStore();
    for (let seq = 0; seq < 10; seq++) store.add(0, 1000, seq, [`l${seq}`]);
    const page = await readLogPage(store, { jobId: 'job-a', limit: 1000, maxChunks: 3 });
    assert.deepEqual(texts(page), ['0:l0', '0:l1', '0:l2']);
    assert.equal(page.more, true);
    assert.equal(store.gets, 3);
  });

  test('a cursor that is not one, or one of another job, is refused', async () => {
    const store = new MemoryStore();
    store.add(0, 1000, 0, ['a0']);
    const page = await readLogPage(store, { jobId: 'job-a', limit: 10 });
    for (const cursor of ['garbage', Buffer.from('{"v":1}').toString('base64url')])
      await assert.rejects(readLogPage(store, { jobId: 'job-a', limit: 10, cursor }), InvalidLogCursorError);
    await assert.rejects(
      readLogPage(store, { jobId: 'job-b', limit: 10, cursor: page.cursor }),
      InvalidLogCursorError,
    );
  });

  test('a job without logs: an empty, drained page', async () => {
    const page = await readLogPage(new MemoryStore(), { jobId: 'job-a', limit: 10 });
    assert.deepEqual(page.lines, []);
    assert.equal(page.more, false);
    assert.equal(page.drained, true);
  });
});
