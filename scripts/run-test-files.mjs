// The runner run-tests.mjs starts (under `--import tsx`, which the test processes inherit): runs the given files in
// the given order, `TESSERA_TEST_CONCURRENCY` at a time, with the spec report, then lists the slowest files.
// Node 20's `--test` sorts the files it is given; its run() API keeps their order, so the slowest can start first.
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { startSharedDynamoDbLocal } from './shared-dynamodb-local.mjs';
import { fileTimes } from './test-file-times.mjs';

const files = process.argv.slice(2);
const concurrency = Number(process.env.TESSERA_TEST_CONCURRENCY) || 1;

// Before run(): the test processes inherit the variable that names it.
const sharedDynamoDb = await startSharedDynamoDbLocal(files);
const stream = run({ files, concurrency });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
const times = fileTimes();
stream.on('test:complete', (data) => times.add(data));
const report = stream.compose(new spec());
report.on('end', () => {
  process.stdout.write(times.report());
  void sharedDynamoDb?.stop();
});
report.pipe(process.stdout);
