import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FleetConfig } from '../../../../lib/aws/fleet/fleet-config.ts';
import { fleetCannotRun, fleetOfferings, planFleet } from '../../../../lib/aws/fleet/fleet-plan.ts';
import type { JobSpec } from '../../../../lib/core/model/job.ts';
import { hostItem } from '../support/items.ts';

const config = (overrides: Partial<FleetConfig> = {}): FleetConfig => ({
  capacityType: 'spot',
  budgetPerHour: 100,
  maxInstances: 10,
  maxLaunchesPerRound: 8,
  idleCooldownSeconds: 600,
  registrationTimeoutSeconds: 900,
  heartbeatTimeoutSeconds: 300,
  subnetIds: [],
  launchTemplates: [
    { family: 'g5', launchTemplateId: 'lt-g5', instanceTypes: ['g5.xlarge', 'g5.12xlarge', 'g5.48xlarge'] },
    { family: 'g4dn', launchTemplateId: 'lt-g4dn', instanceTypes: ['g4dn.xlarge', 'g4dn.12xlarge'] },
  ],
  ...overrides,
});

const spec = (id: string, gpus: number, overrides: Partial<JobSpec> = {}): JobSpec => ({
  id,
  tenant: 't',
  model: 'resnet50',
  batchSize: 64,
  gpus,
  iterations: 100,
  priority: 0,
  packable: false,
  submitTime: 0,
  ...overrides,
});

const NOW = 10_000; // epoch seconds

describe('planFleet scale-out', () => {
  test('launches the cheapest instance that fits each waiting job, grouped by type', () => {
    const plan = planFleet({
      now: NOW,
      config: config(),
      hosts: [],
      busyHosts: new Set(),
      waiting: [spec('a', 1), spec('b', 1, { gpuTypes: ['A10G'] })],
    });
    // T4 (g4dn.xlarge, $0.526) is cheaper than an A10G for job a; job b must have an A10G.
    assert.deepEqual(
      plan.launches.map((l) => [l.instanceType, l.count, l.lifecycle, l.launchTemplateId, l.forJobs]),
      [
        ['g4dn.xlarge', 1, 'spot', 'lt-g4dn', ['a']],
        ['g5.xlarge', 1, 'spot', 'lt-g5', ['b']],
      ],
    );
  });

  test('a gang larger than one instance gets several of the largest, all or nothing', () => {
    const plan = planFleet({
      now: NOW,
      config: config({ launchTemplates: [config().launchTemplates[0]!] }),
      hosts: [],
      busyHosts: new Set(),
      waiting: [spec('big', 12)],
    });
    assert.deepEqual(
      plan.launches.map((l) => [l.instanceType, l.count]),
      [['g5.48xlarge', 2]],
    );
    const tight = planFleet({
      now: NOW,
      config: config({ launchTemplates: [config().launchTemplates[0]!], maxInstances: 1 }),
      hosts: [],
      busyHosts: new Set(),
      waiting: [spec('big', 12)],
    });
    assert.equal(tight.launches.length, 0);
    assert.match(tight.unmet[0]?.reason ?? '', /quota: 0 live instances \+ 2 would exceed maxInstances 1/);
  });

  test('respects the hourly budget including what already runs, and keeps trying smaller jobs', () => {
    const plan = planFleet({
      now: NOW,
      config: config({ budgetPerHour: 6 }),
      hosts: [hostItem('h1', { pricePerHour: 5, launchedAt: 0 })],
      busyHosts: new Set(['h1']),
      waiting: [spec('wide', 4, { gpuTypes: ['A10G'] }), spec('small', 1)],
    });
    assert.deepEqual(
      plan.launches.map((l) => l.forJobs),
      [['small']],
    );
    assert.match(
      plan.unmet.find((u) => u.jobId === 'wide')?.reason ?? '',
      /budget: 1 × g5.12xlarge \(\$5.67\/h\) would exceed \$6\/h \(spending \$5.00\/h\)/,
    );
  });

  test('counts GPUs of instances still booting as supply, including leftovers of this round', () => {
    const booting = hostItem('p1', { state: 'pending', gpuType: 'T4', gpuCount: 4, launchedAt: NOW - 1 });
    const plan = planFleet({
      now: NOW,
      config: config(),
      hosts: [booting],
      busyHosts: new Set(),
      waiting: [
        spec('a', 2),
        spec('b', 2),
        spec('c', 3, { gpuTypes: ['A10G'] }),
        spec('d', 1, { gpuTypes: ['A10G'] }),
      ],
    });
    // a and b fit on the booting T4 host; c launches a 4-GPU g5.12xlarge whose spare GPU takes d.
    assert.deepEqual(
      plan.launches.map((l) => [l.instanceType, l.count, l.forJobs]),
      [['g5.12xlarge', 1, ['c']]],
    );
  });

  test('caps launches per round', () => {
    const plan = planFleet({
      now: NOW,
      config: config({ maxLaunchesPerRound: 2 }),
      hosts: [],
      busyHosts: new Set(),
      waiting: [spec('a', 1), spec('b', 1), spec('c', 1)],
    });
    assert.equal(
      plan.launches.reduce((n, l) => n + l.count, 0),
      2,
    );
    assert.match(plan.unmet[0]?.reason ?? '', /at most 2 launches per round/);
  });

  test('on-demand capacity type launches on-demand', () => {
    const plan = planFleet({
      now: NOW,
      config: config({ capacityType: 'on-demand' }),
      hosts: [],
      busyHosts: new Set(),
      waiting: [spec('a', 1)],
    });
    assert.equal(plan.launches[0]?.lifecycle, 'on-demand');
  });
});

describe('planFleet scale-in', () => {
  test('terminates fleet hosts idle past the cool-down, never busy ones or hosts it did not launch', () => {
    const hosts = [
      hostItem('idle-long', { idleSince: NOW - 601, launchedAt: 0 }),
      hostItem('idle-short', { idleSince: NOW - 10, launchedAt: 0 }),
      hostItem('busy', { launchedAt: 0 }),
      hostItem('manual', { idleSince: 0 }),
    ];
    const plan = planFleet({ now: NOW, config: config(), hosts, busyHosts: new Set(['busy']), waiting: [] });
    assert.deepEqual(plan.terminations, [{ hostId: 'idle-long', reason: 'idle for 600 s' }]);
  });

  test('terminates instances whose agent never registered', () => {
    const plan = planFleet({
      now: NOW,
      config: config(),
      hosts: [
        hostItem('stuck', { state: 'pending', launchedAt: NOW - 901 }),
        hostItem('booting', { state: 'pending', launchedAt: NOW - 5 }),
      ],
      busyHosts: new Set(),
      waiting: [],
    });
    assert.deepEqual(
      plan.terminations.map((t) => t.hostId),
      ['stuck'],
    );
  });

  test('keeps an idle host of a type it is launching', () => {
    const plan = planFleet({
      now: NOW,
      config: config(),
      hosts: [hostItem('idle', { gpuType: 'A10G', gpuCount: 1, idleSince: 0, launchedAt: 0 })],
      busyHosts: new Set(),
      waiting: [spec('a', 8, { gpuTypes: ['A10G'] })],
    });
    assert.equal(plan.launches.length, 1);
    assert.deepEqual(plan.terminations, []);
  });
});

describe('fleetCannotRun', () => {
  test('explains jobs no configured family can ever hold', () => {
    assert.match(
      fleetCannotRun(spec('a', 1, { gpuTypes: ['H100'] }), config()) ?? '',
      /no configured instance family \(g5, g4dn\) offers an allowed GPU type \(H100\)/,
    );
    assert.match(
      fleetCannotRun(spec('a', 200), config()) ?? '',
      /needs 200 GPUs; the fleet holds at most 80/,
    );
    assert.equal(fleetCannotRun(spec('a', 8), config()), undefined);
  });

  test('offerings come from the catalog and skip unknown instance types', () => {
    const offerings = fleetOfferings(
      config({
        launchTemplates: [{ family: 'g5', launchTemplateId: 'lt', instanceTypes: ['g5.xlarge', 'g5.nope'] }],
      }),
    );
    assert.deepEqual(
      offerings.map((o) => [o.instanceType, o.gpuType, o.gpus]),
      [['g5.xlarge', 'A10G', 1]],
    );
  });
});
