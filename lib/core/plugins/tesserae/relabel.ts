import { isHolding } from '../../framework/compare.ts';
import type { FreeGpus } from '../../framework/free-gpus.ts';
import { memoKey, type RoundMemo } from '../../framework/round-memo.ts';
import type { MigrateStage } from '../../framework/stages.ts';
import { allocationOf } from '../../model/allocation-of.ts';
import type { Cluster, Host } from '../../model/cluster.ts';
import type { Allocation, Plan } from '../../model/plan.ts';
import { ClassAnswers } from './class-answers.ts';
import { GpuAssignmentMemo } from './node-pair-cost.ts';
import { type HostClasses, hostClasses, relabelPlan } from './relabel-plan.ts';

/** Node pairs' GPU assignments, kept between rounds per cluster (the solver is deterministic: same answers). */
const GPU_ASSIGNMENTS = memoKey<GpuAssignmentMemo>('tesserae/gpu-assignments');
/** Per cluster: each host class's last solved renaming and its problem (answers never depend on what it holds). */
const CLASS_ANSWERS = memoKey<ClassAnswers>('tesserae/class-answers');

/**
 * Tesserae's migration-minimising relabelling as a stage: the plan's host and GPU ids are read as logical names
 * and renamed onto physical GPUs so that as few running jobs as possible move (`relabelPlan`). Pair it with a
 * placement that ignores current GPUs (`logicalPlacement`); after a keep-in-place placement there is little to
 * gain. `free` is updated to the physical GPUs the plan now uses.
 */
export const relabelMigration: MigrateStage = { name: 'relabel', relabel: relabelWithin() };

/**
 * The relabelling step; with `classOf`, hosts are interchangeable only when they also share it (e.g. the rack), so
 * renaming never moves a job's nodes across it.
 */
export function relabelWithin(classOf?: (host: Host) => string): MigrateStage['relabel'] {
  return (ordered, plan, free, ctx) => {
    const current = new Map<string, Allocation>();
    for (const job of ordered) if (isHolding(job)) current.set(job.spec.id, job.allocation!);
    const assignments = ctx.memo.of(ctx.cluster, GPU_ASSIGNMENTS, () => new GpuAssignmentMemo());
    const answers = ctx.memo.of(ctx.cluster, CLASS_ANSWERS, () => new ClassAnswers());
    const { hosts, classes } = usableHostClasses(ctx.cluster, ctx.memo, classOf);
    // `classOf` always present (undefined when none): one object shape for every policy's relabelling, so the code
    // compiled for one (tesserae-t) is not thrown away when another (tessera, by rack) calls it.
    const { plan: physical } = relabelPlan({ hosts, current, plan, assignments, answers, classes, classOf });
    moveReservations(free, plan, physical);
    return physical;
  };
}

/** Per cluster object (whose hosts never change): its usable hosts and their classes, per `classOf`. */
const HOST_CLASSES = memoKey<Map<((host: Host) => string) | undefined, UsableHosts>>('tesserae/host classes');

interface UsableHosts {
  readonly hosts: readonly Host[];
  readonly classes: HostClasses;
}

/** The cluster's usable hosts (not lost, not draining) grouped into classes: made once per cluster and `classOf`. */
const usableHostClasses = (
  cluster: Cluster,
  memo: RoundMemo,
  classOf: ((host: Host) => string) | undefined,
): UsableHosts => {
  const byClassOf = memo.of(cluster, HOST_CLASSES, () => new Map());
  let known = byClassOf.get(classOf);
  if (!known) {
    const hosts = cluster.hosts.filter((h) => h.state !== 'lost' && h.state !== 'draining');
    known = { hosts, classes: hostClasses(hosts, classOf) };
    byClassOf.set(classOf, known);
  }
  return known;
};

/**
 * Releases the GPUs `before` holds and reserves those `after` holds (packed GPUs once), for the jobs whose allocation
 * was renamed: one renamed onto itself is the very same object, and its GPUs stay reserved. (A GPU that such a job
 * shares with a renamed packed partner is renamed onto itself too, so it is released and reserved again.)
 */
const moveReservations = (free: FreeGpus, before: Plan, after: Plan): void => {
  const renamed = (plan: Plan, other: Plan): Plan => {
    const out = new Map<string, Allocation>();
    for (const [jobId, allocation] of plan) if (other.get(jobId) !== allocation) out.set(jobId, allocation);
    return out;
  };
  const from = renamed(before, after);
  const to = renamed(after, before);
  for (const [type, slices] of distinctGpus(from)) for (const s of slices) free.release(one(type, s));
  for (const [type, slices] of distinctGpus(to)) for (const s of slices) free.reserve(one(type, s));
};

const one = (gpuType: string, slice: { hostId: string; gpus: number[] }): Allocation =>
  allocationOf(gpuType, [slice]);

const distinctGpus = (plan: Plan): Map<string, { hostId: string; gpus: number[] }[]> => {
  const byHost = new Map<string, { type: string; gpus: Set<number> }>();
  for (const allocation of plan.values()) {
    for (const slice of allocation.slices) {
      const entry = byHost.get(slice.hostId) ?? { type: allocation.gpuType, gpus: new Set<number>() };
      for (const g of slice.gpus) entry.gpus.add(g);
      byHost.set(slice.hostId, entry);
    }
  }
  const byType = new Map<string, { hostId: string; gpus: number[] }[]>();
  for (const [hostId, { type, gpus }] of byHost) {
    const list = byType.get(type) ?? [];
    list.push({ hostId, gpus: [...gpus].sort((a, b) => a - b) });
    byType.set(type, list);
  }
  return byType;
};
