import { createRoundHandler } from '../../functions/round/handler.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { scheduledEvent, sqsEvent } from '../../lib/local/runner/index.ts';
import { admitHosts, register, telemetryMessages } from '../integration/support/fixtures.ts';
import { ACCOUNT, REGION, startControlPlane } from '../integration/support/local-stack.ts';
import { writeBurst } from './support/burst.ts';

const size = Number(process.argv[2] ?? 25000);
const HOSTS = Array.from({ length: 50 }, (_, i) => `rt-${i}`);
let running: Promise<RoundReport> | undefined;
const cp = await startControlPlane({
  runner: {
    factories: {
      round: (options) => {
        const handler = createRoundHandler(options);
        return (event, context) => {
          running = handler(event, { awsRequestId: context.awsRequestId } as never);
          return running;
        };
      },
    },
  },
});
await admitHosts(cp, ...HOSTS);
await cp.runner.invoke(
  'telemetry',
  sqsEvent(
    telemetryMessages(HOSTS.map((h) => register(h, 8, { instanceType: 'p4d.24xlarge' }))),
    'arn:aws:sqs:us-east-1:0:telemetry',
    REGION,
  ),
);
await writeBurst(cp, size, 'rt', { changedAt: Date.now() - 600_000, gpus: (i) => 1 + (i % 4) });
for (let r = 0; r < 3; r++) {
  const start = performance.now();
  try {
    await cp.runner.invoke('round', scheduledEvent('arn:aws:events:us-east-1:0:rule/r', REGION, ACCOUNT));
  } catch (e) {
    console.log('timeout', String(e));
  }
  const report = await running!;
  console.log(
    JSON.stringify({
      total: (performance.now() - start) / 1000,
      how: report.queueRead,
      items: report.queueItemsRead,
      ...report.seconds,
    }),
  );
}
await cp.stop();
