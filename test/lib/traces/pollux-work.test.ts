import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { resolveDataDir } from '../../../lib/data/data-dir.ts';
import { readTrace } from '../../../lib/traces/read.ts';
import { fixturePath } from './fixtures.ts';

/**
 * The shared rule (../shared/data/NOTICE.md, "Pollux applications"), computed here independently of
 * lib/traces/pollux-work.ts: the artifact's own loop, one optimizer step at a time, each adding the gain of the epoch
 * the job is in, until progress reaches P_end.
 */
const MAX_EPOCHS: Record<string, number> = { cifar10: 100, ncf: 10, bert: 2, deepspeech2: 80 };

const readCurves = (app: string) => {
  const dir = join(resolveDataDir(), 'pollux', app);
  return readdirSync(dir)
    .filter((f) => /^validation-\d+\.csv$/.test(f))
    .map((f) => {
      const [header, ...rows] = readFileSync(join(dir, f), 'utf8').trim().split('\n');
      const col = (name: string) => header!.split(',').indexOf(name);
      const cells = rows.map((r) => r.split(',').map(Number));
      return {
        bsz: Number(/(\d+)/.exec(f)![1]),
        progress: cells.map((c) => c[col('progress')]!),
        sqr: cells.map((c) => c[col('grad_sqr')]!),
        variance: cells.map((c) => c[col('grad_var')]!),
      };
    })
    .sort((a, b) => a.bsz - b.bsz);
};

const stepsByTheRule = (app: string, batch: number): number => {
  const curves = readCurves(app);
  const maxEpochs = MAX_EPOCHS[app]!;
  const boundary = (e: number) => Math.min(...curves.map((c) => c.progress[e]!));
  const pEnd = boundary(maxEpochs - 1);
  const lo = [...curves].reverse().find((c) => c.bsz <= batch)!;
  const hi = curves.find((c) => c.bsz >= batch)!;
  const interp = (pick: (c: (typeof curves)[number]) => number) =>
    lo === hi ? pick(lo) : pick(lo) + ((batch - lo.bsz) / (hi.bsz - lo.bsz)) * (pick(hi) - pick(lo));
  const b0 = curves[0]!.bsz;
  let progress = 0;
  let steps = 0;
  while (progress < pEnd) {
    let epoch = 0;
    while (epoch < maxEpochs - 1 && boundary(epoch) <= progress) epoch++;
    const sqr = interp((c) => c.sqr[epoch]!);
    const variance = interp((c) => c.variance[epoch]!);
    progress += (variance + sqr) / (variance / (batch / b0) + sqr);
    steps++;
  }
  return steps;
};

describe('Pollux workload jobs get their work from the applications’ training curves', () => {
  const trace = readTrace(fixturePath('pollux-workload-1.csv'));

  test('every row of the real workload imports with work', () => {
    assert.deepEqual(trace.issues, []);
    assert.equal(trace.jobs.length, 13);
    for (const job of trace.jobs) assert.ok((job.iterations ?? 0) > 0, job.id);
  });

  test('the work follows the shared rule (CIFAR-10 at 2048 and 4096, NCF at 32768, BERT at 384)', () => {
    for (const id of ['cifar10-0', 'cifar10-4', 'ncf-2', 'bert-27']) {
      const job = trace.jobs.find((j) => j.id === id)!;
      const app = job.labels!.application!;
      const expected = stepsByTheRule(app, job.batchSize!);
      // The artifact counts whole steps (the last one overshoots, a step straddling an epoch end keeps its gain).
      assert.ok(
        Math.abs(job.iterations! - expected) <= Math.max(3, 0.002 * expected),
        `${id}: ${job.iterations} steps, the rule gives ${expected}`,
      );
    }
  });

  test('a batch size between validated ones interpolates the gradient statistics', () => {
    const text = 'name,time,application,num_replicas,batch_size\na,0,cifar10,4,3000\nb,0,deepspeech2,2,100\n';
    const path = join(process.env.TMPDIR ?? '/tmp', `pollux-interp-${process.pid}.csv`);
    writeFileSync(path, text);
    const jobs = readTrace(path, { format: 'pollux' }).jobs;
    for (const job of jobs) {
      const expected = stepsByTheRule(job.labels!.application!, job.batchSize!);
      assert.ok(
        Math.abs(job.iterations! - expected) <= MAX_EPOCHS[job.labels!.application!]! / 2 + 1,
        job.id,
      );
    }
  });

  test('an application without curves is an issue naming the row, not a silent drop', () => {
    const path = join(process.env.TMPDIR ?? '/tmp', `pollux-unknown-${process.pid}.csv`);
    writeFileSync(path, 'name,time,application,num_replicas,batch_size\nx,0,gpt9,1,64\n');
    const parsed = readTrace(path, { format: 'pollux' });
    assert.equal(parsed.jobs.length, 0);
    assert.match(parsed.issues[0]!.message, /no training curves pollux\/gpt9/);
  });
});
