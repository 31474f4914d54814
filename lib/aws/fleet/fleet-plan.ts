/**
 * Fleet sizing for the AWS shell (pure: time and state are inputs). Scale out for jobs still waiting after a
 * round — cheapest instances of an allowed GPU type that fit the job, all or nothing for a gang, within the
 * hourly budget, the instance quota and a per-round cap, counting instances still booting as supply — and scale
 * in hosts idle past the cool-down or launched but never registered. Hosts the fleet did not launch (no
 * `launchedAt`: registered by an agent outside EC2) are never terminated.
 */
import { getInstanceOffering, type InstanceOfferingEntry } from '../../core/catalog/instances.ts';
import type { Lifecycle } from '../../core/model/cluster.ts';
import type { GpuTypeId } from '../../core/model/gpu.ts';
import type { JobSpec } from '../../core/model/job.ts';
import type { HostItem } from '../items/host-item.ts';
import type { FleetConfig } from './fleet-config.ts';

export interface FleetOffering {
  readonly family: string;
  readonly launchTemplateId: string;
  readonly instanceType: string;
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly pricePerHour: number;
}

export interface PlannedLaunch extends FleetOffering {
  readonly count: number;
  readonly lifecycle: Lifecycle;
  readonly forJobs: readonly string[];
}

export interface PlannedTermination {
  readonly hostId: string;
  readonly reason: string;
}

export interface FleetPlan {
  readonly launches: readonly PlannedLaunch[];
  readonly terminations: readonly PlannedTermination[];
  /** Waiting jobs the fleet will not grow for this round, and why. */
  readonly unmet: readonly { readonly jobId: string; readonly reason: string }[];
}

export interface FleetPlanInput {
  /** Epoch seconds. */
  readonly now: number;
  readonly config: FleetConfig;
  /** Live hosts: pending, active and draining. */
  readonly hosts: readonly HostItem[];
  /** Hosts with at least one worker in their new desired state. */
  readonly busyHosts: ReadonlySet<string>;
  /** Jobs still waiting for GPUs after the round, most important first. */
  readonly waiting: readonly JobSpec[];
}

/** The instance types the configuration allows, with catalog GPU counts and prices; unknown types are skipped. */
export const fleetOfferings = (config: FleetConfig): FleetOffering[] => {
  const offerings: FleetOffering[] = [];
  for (const template of config.launchTemplates) {
    for (const instanceType of template.instanceTypes) {
      let offering: InstanceOfferingEntry;
      try {
        offering = getInstanceOffering(instanceType);
      } catch {
        continue;
      }
      offerings.push({
        family: template.family,
        launchTemplateId: template.launchTemplateId,
        instanceType: offering.instanceType,
        gpuType: offering.gpuType,
        gpus: offering.gpus,
        pricePerHour: offering.onDemandPerHour,
      });
    }
  }
  return offerings;
};

const neededGpus = (spec: JobSpec): number => (spec.elastic ? Math.max(1, spec.elastic.minGpus) : spec.gpus);

const allowedBy = (spec: JobSpec) => (type: GpuTypeId) =>
  !spec.gpuTypes || spec.gpuTypes.length === 0 || spec.gpuTypes.includes(type);

/** Why the configured fleet can never run the job (no allowed type, or too few GPUs even at the quota), or undefined. */
export const fleetCannotRun = (spec: JobSpec, config: FleetConfig): string | undefined => {
  const allowed = allowedBy(spec);
  const offerings = fleetOfferings(config).filter((o) => allowed(o.gpuType));
  if (offerings.length === 0) {
    const families = config.launchTemplates.map((t) => t.family).join(', ') || 'none';
    return `no configured instance family (${families}) offers an allowed GPU type (${spec.gpuTypes?.join(', ') ?? 'any'})`;
  }
  const need = neededGpus(spec);
  const most = Math.max(...offerings.map((o) => o.gpus)) * config.maxInstances;
  if (need > most)
    return `needs ${need} GPUs; the fleet holds at most ${most} of an allowed type (maxInstances ${config.maxInstances})`;
  return undefined;
};

/** The cheapest way to get `need` GPUs of one type: one instance big enough, or several of the largest. */
const cheapestFor = (need: number, offerings: readonly FleetOffering[], preferred?: GpuTypeId) => {
  let best: { offering: FleetOffering; count: number; cost: number } | undefined;
  const byType = new Map<GpuTypeId, FleetOffering[]>();
  for (const o of offerings) byType.set(o.gpuType, [...(byType.get(o.gpuType) ?? []), o]);
  for (const [type, list] of byType) {
    const single = list.filter((o) => o.gpus >= need).sort((a, b) => a.pricePerHour - b.pricePerHour)[0];
    const largest = [...list].sort((a, b) => b.gpus - a.gpus || a.pricePerHour - b.pricePerHour)[0]!;
    const candidate = single
      ? { offering: single, count: 1, cost: single.pricePerHour }
      : {
          offering: largest,
          count: Math.ceil(need / largest.gpus),
          cost: Math.ceil(need / largest.gpus) * largest.pricePerHour,
        };
    const better =
      !best ||
      candidate.cost < best.cost - 1e-9 ||
      (Math.abs(candidate.cost - best.cost) <= 1e-9 &&
        type === preferred &&
        best.offering.gpuType !== preferred);
    if (better) best = candidate;
  }
  return best;
};

export const planFleet = (input: FleetPlanInput): FleetPlan => {
  const { config, now } = input;
  const offerings = fleetOfferings(config);
  const live = input.hosts.filter(
    (h) => h.state === 'pending' || h.state === 'active' || h.state === 'draining',
  );
  let spend = live.reduce((sum, h) => sum + (h.pricePerHour ?? 0), 0);
  let instances = live.length;
  let launchedThisRound = 0;

  // GPUs of instances still booting, by type: they will take waiting jobs once their agents register.
  const booting = new Map<GpuTypeId, number>();
  for (const host of live) {
    if (host.state === 'pending' && host.gpuType)
      booting.set(host.gpuType, (booting.get(host.gpuType) ?? 0) + host.gpuCount);
  }

  const launches = new Map<string, PlannedLaunch>();
  const unmet: { jobId: string; reason: string }[] = [];
  const lifecycle: Lifecycle = config.capacityType === 'spot' ? 'spot' : 'on-demand';
  for (const spec of input.waiting) {
    const need = neededGpus(spec);
    const allowed = allowedBy(spec);
    const supply = [...booting.entries()].find(([type, gpus]) => allowed(type) && gpus >= need);
    if (supply) {
      booting.set(supply[0], supply[1] - need);
      continue;
    }
    const choice = cheapestFor(
      need,
      offerings.filter((o) => allowed(o.gpuType)),
      spec.preferredGpuType,
    );
    if (!choice) {
      unmet.push({ jobId: spec.id, reason: fleetCannotRun(spec, config) ?? 'no instance type fits' });
      continue;
    }
    const { offering, count, cost } = choice;
    let reason: string | undefined;
    if (spend + cost > config.budgetPerHour + 1e-9)
      reason = `budget: ${count} × ${offering.instanceType} ($${cost.toFixed(2)}/h) would exceed $${config.budgetPerHour}/h (spending $${spend.toFixed(2)}/h)`;
    else if (instances + count > config.maxInstances)
      reason = `quota: ${instances} live instances + ${count} would exceed maxInstances ${config.maxInstances}`;
    else if (launchedThisRound + count > config.maxLaunchesPerRound)
      reason = `at most ${config.maxLaunchesPerRound} launches per round`;
    if (reason) {
      unmet.push({ jobId: spec.id, reason });
      continue;
    }
    spend += cost;
    instances += count;
    launchedThisRound += count;
    const leftover = count * offering.gpus - need;
    if (leftover > 0) booting.set(offering.gpuType, (booting.get(offering.gpuType) ?? 0) + leftover);
    const previous = launches.get(offering.instanceType);
    launches.set(offering.instanceType, {
      ...offering,
      lifecycle,
      count: (previous?.count ?? 0) + count,
      forJobs: [...(previous?.forJobs ?? []), spec.id],
    });
  }

  const launchingTypes = new Set([...launches.values()].map((l) => l.gpuType));
  const terminations: PlannedTermination[] = [];
  for (const host of live) {
    // Only instances the fleet launched (or adopted from EC2) are its to terminate.
    if (host.launchedAt === undefined) continue;
    if (host.state === 'pending') {
      if (now - host.launchedAt >= config.registrationTimeoutSeconds)
        terminations.push({
          hostId: host.hostId,
          reason: `agent did not register within ${config.registrationTimeoutSeconds} s of launch`,
        });
      continue;
    }
    if (host.state !== 'active' || input.busyHosts.has(host.hostId) || host.idleSince === undefined) continue;
    // Terminating a host while launching its type would only pay for a new boot.
    if (host.gpuType && launchingTypes.has(host.gpuType)) continue;
    if (now - host.idleSince >= config.idleCooldownSeconds)
      terminations.push({ hostId: host.hostId, reason: `idle for ${config.idleCooldownSeconds} s` });
  }
  return { launches: [...launches.values()], terminations, unmet };
};
