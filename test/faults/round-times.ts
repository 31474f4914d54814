// Round times against DynamoDB Local with N queued jobs on 400 GPUs (50 hosts × 8 A100), through the real round
// handler: `node --import tsx test/faults/round-times.ts 2000 10000 25000`. Jobs are written straight into the
// Jobs table (as if submitted earlier); each size gets a fresh control plane. Rounds: a cold handler (no snapshot yet:
// it reads the queue in full, over several rounds if long), four warm ones (only what changed; the first of them
// writes the snapshot), then a new cold handler (from the snapshot).
// Prints one line per size with each round's seconds (wall), the CPU seconds of this process and of its children
// (DynamoDB Local's java) during it, and where the wall time went.
import { createRoundHandler } from '../../functions/round/handler.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { scheduledEvent, sqsEvent } from '../../lib/local/runner/index.ts';
import { admitHosts, register, telemetryMessages } from '../integration/support/fixtures.ts';
import { ACCOUNT, REGION, startControlPlane } from '../integration/support/local-stack.ts';
import { writeBurst } from './support/burst.ts';
import { descendantCpuSeconds } from './support/process-cpu.ts';

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
    await writeBurst(cp, size, 'rt', { changedAt: Date.now() - 600_000, gpus: (i) => 1 + (i % 4) });
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
      phases.push({ how: report.queueRead ?? '', items: report.queueItemsRead ?? 0, ...report.seconds });
    };
    // Cold, until the full read is done (it may take rounds); then warm rounds; then a cold one from the snapshot.
    do await run();
    while (report?.queueComplete === false || report?.queueRead === 'full');
    for (let r = 0; r < 4; r++) await run();
    coldStart();
    await run();
    process.stdout.write(
      `${JSON.stringify({ queued: size, gpus: HOSTS.length * 8, loadSeconds: +loadSeconds.toFixed(1), roundSeconds: times.map((t) => +t.toFixed(2)), cpuSeconds: cpu, phases, lastRound: { outcome: report?.outcome, actions: report?.actions, queued: report?.queued } })}\n`,
    );
  } finally {
    await cp.stop();
  }
}
