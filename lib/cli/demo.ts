// `tessera sim --demo`: a readable simulator demo on the shared Philly trace (the busy weeks from day 49).
import { resolve } from 'node:path';
import { writeReport } from '../sim/report/write.ts';
import { loadWorkload, runPolicies } from '../sim/run.ts';
import { progress } from './progress.ts';
import { simSummaryText } from './sim-summary.ts';

const POLICIES = ['fifo', 'yarn-cs', 'tiresias', 'gandiva', 'srtf', 'tessera'];
const TRACE = 'philly';
const CLUSTER = 'crius-testbed-64';

export const runSimDemo = (): void => {
  const workload = loadWorkload({ trace: TRACE, cluster: CLUSTER, skipDays: 49, days: 0.5, seed: 1 });
  process.stderr.write(
    `Tessera demo: replaying half a day of the busy Philly weeks (${workload.jobs.length} jobs) on ${CLUSTER} under ${POLICIES.length} policies\n`,
  );
  const runs = POLICIES.flatMap((name) => {
    const bar = progress(name.padEnd(10));
    const result = runPolicies(workload, [name], { roundSeconds: 60 }, (_, f) => bar.update(f));
    bar.stop();
    return result;
  });
  process.stdout.write(`\n${simSummaryText(runs.map((r) => r.summary))}\n\n`);
  const files = writeReport(resolve('reports', 'demo'), workload, runs);
  process.stdout.write(`HTML report: ${files.html}\nPer-job CSV: ${files.csv}\n`);
  process.stdout.write(
    'Try your own: npx tessera sim --trace philly --cluster crius-1280 --skip-days 49 --days 0.5 --policy fifo,tiresias,srtf,tessera\n',
  );
};
