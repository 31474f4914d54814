// GET /cluster latency against DynamoDB Local with N queued jobs, through the real API handler:
// `node --import tsx test/faults/cluster-view-times.ts 10000`. Side by side in one run: the handler as it is (one
// tenant-summary item the round wrote) and, as the baseline, what the handler did before — read every active job
// from the byStatus index and count the caller's — each repeated, wall and CPU seconds of this process.
import { ACTIVE_JOB_STATUSES } from '../../lib/aws/items/job-item.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { callApi, invokeRound } from '../integration/support/fixtures.ts';
import { startControlPlane } from '../integration/support/local-stack.ts';
import { writeBurst } from './support/burst.ts';

const sizes = process.argv.slice(2).map(Number);
const REPEATS = 5;
const TENANT = 'tenant-3'; // the burst spreads its jobs over tenant-0 … tenant-6

const measure = async (body: () => Promise<unknown>) => {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    const before = process.cpuUsage();
    await body();
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1e6);
    wall.push((performance.now() - started) / 1000);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return `wall median ${median(wall).toFixed(3)} s (${wall.map((w) => w.toFixed(2)).join(', ')}), cpu median ${median(cpu).toFixed(3)} s`;
};

for (const size of sizes.length > 0 ? sizes : [10_000]) {
  const cp = await startControlPlane();
  try {
    await writeBurst(cp, size, 'cv');
    let report: RoundReport;
    do report = await invokeRound(cp);
    while (report.queueComplete === false);
    const view = await callApi(cp, { method: 'GET', resource: '/cluster', principal: TENANT });
    const summary = await measure(() =>
      callApi(cp, { method: 'GET', resource: '/cluster', principal: TENANT }),
    );
    const baseline = await measure(async () => {
      const [hosts, jobs, state] = await Promise.all([
        cp.hosts.listByStates(['pending', 'active', 'draining']),
        cp.jobs.listByStatuses(ACTIVE_JOB_STATUSES),
        cp.state.loadState(),
      ]);
      const counts: Record<string, number> = {};
      for (const job of jobs.items)
        if (job.tenant === TENANT) counts[job.status] = (counts[job.status] ?? 0) + 1;
      return { hosts, counts, state };
    });
    console.log(
      `${size} queued jobs; ${TENANT} sees ${JSON.stringify(view.body.jobs)} as of ${view.body.jobsAsOf}\n` +
        `  GET /cluster (summary item): ${summary}\n  before (read every active job): ${baseline}`,
    );
  } finally {
    await cp.stop();
  }
}
