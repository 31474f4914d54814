// The round's queue view through the real parts: a round reads only what changed, a cold round handler starts from the
// persisted snapshot, a torn snapshot is refused, and a decision taken on a stale view of a job is dropped.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createRoundHandler } from '../../functions/round/handler.ts';
import { JobsRepository } from '../../lib/aws/repositories/jobs-repository.ts';
import {
  QueueSnapshotRepository,
  SNAPSHOT_KEY,
  segmentKey,
} from '../../lib/aws/repositories/queue-snapshot-repository.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { admitHosts, invokeRound, jobDocument, register, sendTelemetry, submit } from './support/fixtures.ts';
import { type ControlPlane, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
/** Replaces the round handler by a new one: what a new Lambda container (a cold start) runs. */
let coldStart = () => {};
before(async () => {
  cp = await startControlPlane({
    context: { 'tessera:instanceFamilies': 'g5', 'tessera:policy': 'yarn-cs' },
    runner: {
      factories: {
        round: (options) => {
          let handler = createRoundHandler(options);
          coldStart = () => {
            handler = createRoundHandler(options);
          };
          return (event, context) => handler(event, context);
        },
      },
    },
  });
});
after(async () => {
  await cp?.stop();
});

const round = () => invokeRound(cp) as Promise<RoundReport>;
const snapshots = () => new QueueSnapshotRepository(cp.clients.dynamodb, cp.state.tableName);
const segmentItem = async (key: string) =>
  (await cp.clients.dynamodb.send(new GetCommand({ TableName: cp.state.tableName, Key: { key } }))).Item!;

describe('queue view', () => {
  test('a cold round reads the queue in full and persists it; warm rounds read only what changed', async () => {
    await admitHosts(cp, 'host-q');
    await sendTelemetry(cp, register('host-q', 4));
    for (let i = 0; i < 6; i++) await submit(cp, jobDocument({ clientToken: `q-${i}`, gpus: 4 }));
    const cold = await round();
    assert.equal(cold.queueRead, 'full');
    assert.equal(cold.queued, 5, 'one of six started');
    assert.deepEqual(
      await snapshots().load(),
      { invalid: 'no snapshot' },
      'not in the round of the full read',
    );

    await submit(cp, jobDocument({ clientToken: 'q-late', gpus: 4 }));
    const warm = await round();
    assert.equal(warm.queueRead, 'delta');
    assert.equal(warm.queued, 6);
    const persisted = await snapshots().load();
    assert.ok('jobs' in persisted, JSON.stringify(persisted));
    assert.equal(persisted.jobs.length, 6, 'the round after a full read persists the view');
    assert.ok((warm.queueItemsRead ?? 0) < 12, `read ${warm.queueItemsRead} changed items`);

    // A new container: the snapshot and the changes since it, no full read.
    const after = (await submit(cp, jobDocument({ clientToken: 'q-after', gpus: 4 }))).body.job.jobId;
    coldStart();
    const fromSnapshot = await round();
    assert.equal(fromSnapshot.queueRead, 'snapshot');
    assert.equal(fromSnapshot.queued, 7);
    assert.equal((await cp.jobs.get(after))?.status, 'queued');
  });

  test('a round rewrites only the segments whose jobs changed; wait info alone rewrites none', async () => {
    // Twenty more waiting jobs: the queue is cut into more segments, all written once.
    for (let i = 0; i < 20; i++) await submit(cp, jobDocument({ clientToken: `seg-${i}`, gpus: 4 }));
    const recut = await round();
    assert.equal(recut.queued, 27);
    assert.equal(recut.snapshot?.segments, 2);
    assert.equal(recut.snapshot?.segmentsWritten, 2);
    const former = await cp.clients.dynamodb.send(
      new GetCommand({ TableName: cp.state.tableName, Key: { key: segmentKey(1, 0) } }),
    );
    assert.equal(former.Item, undefined, 'the segment of the former count is deleted');
    // Nothing changed but the rounds' own wait info: the header only.
    const quiet = await round();
    assert.equal(quiet.snapshot?.segmentsWritten, 0, JSON.stringify(quiet.snapshot));
    // One new job: its segment only.
    await submit(cp, jobDocument({ clientToken: 'seg-one', gpus: 4 }));
    const one = await round();
    assert.equal(one.snapshot?.segmentsWritten, 1, JSON.stringify(one.snapshot));
    const persisted = await snapshots().load();
    assert.ok('jobs' in persisted, JSON.stringify(persisted));
    assert.equal(persisted.jobs.length, 28);

    // A new container that starts from the snapshot knows what the table holds: it rewrites nothing unchanged.
    coldStart();
    const cold = await round();
    assert.equal(cold.queueRead, 'snapshot');
    assert.equal(cold.snapshot?.segmentsWritten, 0, JSON.stringify(cold.snapshot));
  });

  test('a header another handler wrote since: the persist is refused, the next one reads the table and goes on', async () => {
    await cp.clients.dynamodb.send(
      new UpdateCommand({
        TableName: cp.state.tableName,
        Key: { key: SNAPSHOT_KEY },
        UpdateExpression: 'SET persistId = :p',
        ExpressionAttributeValues: { ':p': 'another-handler' },
      }),
    );
    await submit(cp, jobDocument({ clientToken: 'seg-two', gpus: 4 }));
    const refused = await round();
    assert.equal(refused.snapshot?.written, false, JSON.stringify(refused.snapshot));
    const next = await round();
    assert.equal(next.snapshot?.written, true, JSON.stringify(next.snapshot));
    assert.notEqual((await snapshots().loadHeader())?.persistId, 'another-handler');
    const persisted = await snapshots().load();
    assert.equal('jobs' in persisted ? persisted.jobs.length : 0, 29);
  });

  test('a torn snapshot (a segment missing or altered) is refused: the cold round reads in full', async () => {
    const header = (await snapshots().loadHeader())!;
    await cp.clients.dynamodb.send(
      new PutCommand({
        TableName: cp.state.tableName,
        Item: { ...(await segmentItem(segmentKey(header.segments, 0))), body: '[]' },
      }),
    );
    assert.deepEqual(await snapshots().load(), { invalid: 'segment 0: checksum does not match' });
    coldStart();
    const report = await round();
    assert.equal(report.queueRead, 'full');
    assert.equal(report.queued, 29);
    // The next round finds the table out of step with what it read in full: it rewrites the torn segment only.
    const repaired = await round();
    assert.equal(repaired.snapshot?.segmentsWritten, 1, JSON.stringify(repaired.snapshot));
    assert.ok('jobs' in (await snapshots().load()));
  });

  test('a job changed where the change index does not show it yet is not started from the stale view', async () => {
    // Free the host: the running job finishes.
    const running = (await cp.jobs.listByStatuses(['running'])).items[0]!;
    await sendTelemetry(cp, {
      type: 'finished',
      hostId: 'host-q',
      at: Date.now() / 1000,
      jobId: running.jobId,
      jobGeneration: running.jobGeneration,
      step: 1000,
    });
    // The head of the queue is cancelled by a writer whose clock is an hour behind: the index hides the change.
    const head = (await cp.jobs.listByStatuses(['queued'])).items.sort(
      (a, b) => a.submittedAt - b.submittedAt,
    )[0]!;
    const lagging = new JobsRepository(
      cp.clients.dynamodb,
      cp.jobs.tableName,
      () => Date.now() / 1000 - 3600,
    );
    assert.ok(await lagging.updateIf(head.jobId, { set: { status: 'cancelled' } }, { status: ['queued'] }));
    const report = await round();
    assert.ok(
      report.conflicts.some((c) => c.startsWith(`job ${head.jobId}`)),
      JSON.stringify(report.conflicts),
    );
    assert.equal((await cp.jobs.get(head.jobId))?.status, 'cancelled');
    const host = await cp.hosts.get('host-q');
    assert.ok(!host?.desired?.jobs.some((j) => j.jobId === head.jobId));
    // The next round takes the next job in line.
    const next = await round();
    assert.equal(next.actions.start, 1);
  });
});
