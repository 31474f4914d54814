// Round times against DynamoDB Local with N queued jobs on 400 GPUs (50 hosts × 8 A100), through the real round
// handler: `node --import tsx test/faults/round-times.ts 2000 10000 25000`. Jobs are written straight into the
// Jobs table (as if submitted earlier); each size gets a fresh control plane. Rounds: a cold handler (no snapshot yet:
// it reads the queue in full, over several rounds if long), four warm ones (only what changed; the first of them
// writes the snapshot), then a new cold handler (from the snapshot).
// Prints one line per size with each round's seconds (wall), the CPU seconds of this process and of its children
// (DynamoDB Local's java) during it, and where the wall time went.
import { createRoundHandler } from '../../functions/round/handler.ts';
import { indexEntrySize, itemSize, writeUnits } from '../../lib/aws/dynamo/item-size.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { JOBS_TABLE } from '../../lib/aws/tables.ts';
import { scheduledEvent, sqsEvent } from '../../lib/local/runner/index.ts';
import { admitHosts, register, telemetryMessages } from '../integration/support/fixtures.ts';
import { ACCOUNT, REGION, startControlPlane } from '../integration/support/local-stack.ts';
import { writeBurst } from './support/burst.ts';
import { descendantCpuSeconds } from './support/process-cpu.ts';

/**
 * What one write of a job costs the change index, on the jobs as this run left them (queued ones as submitted,
 * running ones with their placement and timeline): average bytes of the item and of its byChange entry with the whole
 * item projected (before) and with the projection the stack declares (after), and the index's write units per job
 * write — two writes (the old entry deleted, the new one put), since every write moves the entry's sort key.
 */
const changeIndexWriteSizes = async (cp: Awaited<ReturnType<typeof startControlPlane>>) => {
  const index = JOBS_TABLE.indexes.byChange;
  const keys = [JOBS_TABLE.partitionKey, index.partitionKey, index.sortKey];
  const sample = async (status: 'queued' | 'running') => {
    const items = (await cp.jobs.listRawByStatuses([status])).slice(0, 200);
    const mean = (f: (item: Record<string, unknown>) => number) =>
      Math.round(items.reduce((n, item) => n + f(item), 0) / Math.max(1, items.length));
    return {
      jobs: items.length,
      itemBytes: mean(itemSize),
      entryBytesAll: mean((item) => indexEntrySize(item, keys, 'ALL')),
      entryBytesNow: mean((item) => indexEntrySize(item, keys, index.projection)),
      indexWriteUnitsAll: mean((item) => 2 * writeUnits(indexEntrySize(item, keys, 'ALL'))),
      indexWriteUnitsNow: mean((item) => 2 * writeUnits(indexEntrySize(item, keys, index.projection))),
      tableWriteUnits: mean((item) => writeUnits(itemSize(item))),
    };
  };
  return { queued: await sample('queued'), running: await sample('running') };
};

const sizes = process.argv.slice(2).map(Number);
const HOSTS = Array.from({ length: 50 }, (_, i) => `rt-${i}`);

for (const size of sizes.length > 0 ? sizes : [2000]) {
  let coldStart = () => {};
  const cp = await startControlPlane({
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
  try {
    await admitHosts(cp, ...HOSTS);
    await cp.runner.invoke(
      'telemetry',
      sqsEvent(
        telemetryMessages(HOSTS.map((h) => register(h, 8, { instanceType: 'p4d.24xlarge' }))),
        'arn:aws:sqs:us-east-1:0:telemetry',
        REGION,
      ),
    );
    const writeStart = performance.now();
    // Submitted a while ago: the first round reads the queue in full, later ones only what changed since.
    await writeBurst(cp, size, 'rt', { changedAt: Date.now() / 1000 - 600, gpus: (i) => 1 + (i % 4) });
    const loadSeconds = (performance.now() - writeStart) / 1000;
    const times: number[] = [];
    const cpu: { node: number; dynamodb: number }[] = [];
    const phases: Record<string, number | string>[] = [];
    let report: RoundReport | undefined;
    const run = async () => {
      const start = performance.now();
      const nodeStart = process.cpuUsage();
      const childStart = descendantCpuSeconds();
      report = await cp.runner.invoke<RoundReport>(
        'round',
        scheduledEvent('arn:aws:events:us-east-1:0:rule/r', REGION, ACCOUNT),
      );
      times.push((performance.now() - start) / 1000);
      const node = process.cpuUsage(nodeStart);
      cpu.push({
        node: +((node.user + node.system) / 1e6).toFixed(2),
        dynamodb: +(descendantCpuSeconds() - childStart).toFixed(2),
      });
      phases.push({
        how: report.queueRead ?? '',
        items: report.queueItemsRead ?? 0,
        ...(report.queueBodiesRead !== undefined ? { bodies: report.queueBodiesRead } : {}),
        ...(report.snapshot
          ? {
              snapshotBytes: report.snapshot.bytes,
              snapshotWriteUnits: report.snapshot.writeUnits,
              segmentsWritten: report.snapshot.segmentsWritten,
              segments: report.snapshot.segments,
            }
          : {}),
        ...report.seconds,
      });
    };
    // Cold, until the full read is done (it may take rounds); then warm rounds; then a cold one from the snapshot.
    do await run();
    while (report?.queueComplete === false || report?.queueRead === 'full');
    for (let r = 0; r < 4; r++) await run();
    coldStart();
    await run();
    const indexWrites = await changeIndexWriteSizes(cp);
    process.stdout.write(
      `${JSON.stringify({ queued: size, gpus: HOSTS.length * 8, loadSeconds: +loadSeconds.toFixed(1), roundSeconds: times.map((t) => +t.toFixed(2)), cpuSeconds: cpu, phases, lastRound: { outcome: report?.outcome, actions: report?.actions, queued: report?.queued }, indexWrites })}\n`,
    );
  } finally {
    await cp.stop();
  }
}
