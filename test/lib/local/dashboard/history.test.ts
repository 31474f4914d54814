import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ClusterView, SnapshotSeries, snapshotOf } from '../../../../lib/local/dashboard/history.ts';

const view = (busyGpus: number, queued: number, instanceTypes: string[]): ClusterView => ({
  round: 1,
  hosts: instanceTypes.map((instanceType, i) => ({
    hostId: `h${i}`,
    state: 'active',
    instanceType,
    gpus: 4,
    busyGpus: 0,
  })),
  gpus: 4 * instanceTypes.length,
  busyGpus,
  jobs: { queued, suspended: 1, running: 2 },
});

describe('cluster snapshots for the dashboard charts', () => {
  test('utilisation, queue length and the on-demand price of the live instances', () => {
    const s = snapshotOf(100, view(6, 3, ['g5.12xlarge', 'g5.12xlarge']));
    assert.equal(s.utilisation, 0.75);
    assert.equal(s.queued, 4, 'queued and suspended jobs wait');
    assert.equal(s.running, 2);
    assert.ok(Math.abs(s.dollarsPerHour - 2 * 5.672) < 0.01, `${s.dollarsPerHour}`);
    assert.equal(s.dollars, 0);
  });

  test('an instance type outside the catalog is unpriced, not guessed', () => {
    assert.equal(snapshotOf(0, view(0, 0, ['x9.huge'])).dollarsPerHour, 0);
  });

  test('dollars spent integrate the rate between samples; the series keeps the newest points', () => {
    const series = new SnapshotSeries(2);
    series.add(0, view(0, 0, ['g5.12xlarge']));
    series.add(1800, view(0, 0, ['g5.12xlarge']));
    const last = series.add(3600, view(0, 0, []));
    assert.ok(Math.abs(last.dollars - 5.672) < 0.01, `${last.dollars}`);
    assert.deepEqual(
      series.all().map((p) => p.t),
      [1800, 3600],
    );
  });
});
