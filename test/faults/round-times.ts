// Round times against DynamoDB Local with N queued jobs on 400 GPUs (50 hosts × 8 A100), through the real round
// handler: `node --import tsx test/faults/round-times.ts 2000 10000 25000`. Jobs are written straight into the
// Jobs table (as if submitted earlier); each size gets a fresh control plane. Prints one line per size.
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { withChangeStamp } from '../../lib/aws/repositories/jobs-repository.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { jobIdFor, newJobItem } from '../../lib/aws/submit-job.ts';
import { scheduledEvent, sqsEvent } from '../../lib/local/runner/index.ts';
import { validateJobSpec } from '../../lib/protocol/job-spec.ts';
import { admitHosts, jobDocument, register, telemetryMessages } from '../integration/support/fixtures.ts';
import { ACCOUNT, REGION, startControlPlane } from '../integration/support/local-stack.ts';

const sizes = process.argv.slice(2).map(Number);
const HOSTS = Array.from({ length: 50 }, (_, i) => `rt-${i}`);

for (const size of sizes.length > 0 ? sizes : [2000]) {
  const cp = await startControlPlane();
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
    const now = Date.now();
    const items = Array.from({ length: size }, (_, i) => {
      const parsed = validateJobSpec(
        jobDocument({ gpus: 1 + (i % 4), iterations: 1e9, clientToken: `rt-${i}` }),
      );
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      return withChangeStamp(
        newJobItem({ tenant: `tenant-${i % 7}`, document: parsed.document }, jobIdFor('rt', String(i)), now + i),
        Date.now(),
      );
    });
    const writeStart = performance.now();
    for (let i = 0; i < items.length; i += 25 * 8) {
      await Promise.all(
        Array.from({ length: 8 }, (_, c) => items.slice(i + c * 25, i + (c + 1) * 25))
          .filter((chunk) => chunk.length > 0)
          .map((chunk) =>
            cp.clients.dynamodb.send(
              new BatchWriteCommand({
                RequestItems: { [cp.jobs.tableName]: chunk.map((Item) => ({ PutRequest: { Item } })) },
              }),
            ),
          ),
      );
    }
    const loadSeconds = (performance.now() - writeStart) / 1000;
    const times: number[] = [];
    const phases: Record<string, number | string>[] = [];
    let report: RoundReport | undefined;
    for (let r = 0; r < 4; r++) {
      const start = performance.now();
      report = await cp.runner.invoke<RoundReport>(
        'round',
        scheduledEvent('arn:aws:events:us-east-1:0:rule/r', REGION, ACCOUNT),
      );
      times.push((performance.now() - start) / 1000);
      phases.push({ how: report.queueRead ?? '', items: report.queueItemsRead ?? 0, ...report.seconds });
    }
    process.stdout.write(
      `${JSON.stringify({ queued: size, gpus: HOSTS.length * 8, loadSeconds: +loadSeconds.toFixed(1), roundSeconds: times.map((t) => +t.toFixed(2)), phases, lastRound: { outcome: report?.outcome, actions: report?.actions } })}\n`,
    );
  } finally {
    await cp.stop();
  }
}
