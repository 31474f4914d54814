import { withSlices } from '../../model/allocation-of.ts';
import type { Host, HostSlice } from '../../model/cluster.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';
import { type ClassAnswers, classSignature } from './class-answers.ts';
import { GpuAssignmentMemo, moveCost, sharedSaving } from './node-pair-cost.ts';
import { refloatSingleGpuWork } from './refloat-single-gpu.ts';
import { relabelNodes } from './relabel-nodes.ts';

export interface RelabelInput {
  /** Usable hosts: the physical nodes, and the labels a logical plan may use. */
  readonly hosts: readonly Host[];
  /** Where jobs run now, on physical GPUs. */
  readonly current: ReadonlyMap<string, Allocation>;
  /** The new plan on logical GPUs: host ids and GPU indices are names, not places. */
  readonly plan: ReadonlyMap<string, Allocation>;
  /**
   * After the node-level renaming, let GPUs that hold only 1-GPU jobs move to any GPU of their class
   * (default true): such a GPU's work has no consolidation to keep, so a flat GPU-level matching is safe there.
   */
  readonly floatSingleGpuWork?: boolean;
  /**
   * A further key hosts must share to be interchangeable (e.g. their rack): renaming then never moves a job's nodes
   * across it, so a plan that keeps a job within one rack stays within one rack. Default: none.
   */
  readonly classOf?: (host: Host) => string;
  /** GPU-level assignments solved before, in this round or earlier ones: the same answers without solving again. */
  readonly assignments?: GpuAssignmentMemo;
  /**
   * Renamings solved before for these very classes (`classes` must be given too), in this round or earlier ones: a
   * class whose contents are the same in both plans but must be solved (twin nodes, see `unchangedClass`) takes the
   * answer solved for the very same contents without solving again. Used only with `skipUnchangedClasses` and
   * `floatSingleGpuWork` (the defaults).
   */
  readonly answers?: ClassAnswers;
  /**
   * `hostClasses(hosts, classOf)` made before, for these very hosts and `classOf` (a stage keeps it per cluster):
   * the same classes without grouping the hosts again every round.
   */
  readonly classes?: HostClasses;
  /**
   * Keep a class as it is, without solving, when the renaming it would get provably keeps every job on it where it
   * is (`unchangedClass`), and in a class that is solved keep its settled nodes (`settledNodes`) out of the node-level
   * assignment (default true). The same plan either way: false exists for the specification test.
   */
  readonly skipUnchangedClasses?: boolean;
}

export interface RelabelResult {
  /** The new plan on physical GPUs. */
  readonly plan: Map<string, Allocation>;
  /**
   * Tesserae's amortised migration cost of the result (≈ the number of migrated jobs). Computed when first read:
   * the relabel stage never reads it, and it is a pass over every GPU of the cluster.
   */
  readonly cost: number;
}

/** A set of interchangeable hosts: one GPU type, one GPU count per host. */
export interface NodeClass {
  readonly gpus: number;
  readonly hosts: readonly Host[];
}

/** Usable hosts grouped into classes (in first-seen order), and where each host sits in its class. */
export interface HostClasses {
  readonly classes: readonly NodeClass[];
  readonly where: ReadonlyMap<string, { readonly cls: NodeClass; readonly index: number }>;
}

/** Hosts grouped by GPU type × GPUs per host (× `classOf`, when given): each group is interchangeable. */
export const hostClasses = (hosts: readonly Host[], classOf?: (host: Host) => string): HostClasses => {
  const classes = new Map<string, { gpus: number; hosts: Host[] }>();
  const where = new Map<string, { cls: NodeClass; index: number }>();
  for (const host of hosts) {
    const key = `${host.gpuType}\u0000${host.gpuCount}\u0000${classOf?.(host) ?? ''}`;
    let cls = classes.get(key);
    if (!cls) {
      cls = { gpus: host.gpuCount, hosts: [] };
      classes.set(key, cls);
    }
    where.set(host.id, { cls, index: cls.hosts.length });
    cls.hosts.push(host);
  }
  return { classes: [...classes.values()], where };
};

/**
 * Tesserae's migration minimisation (Alg. 2): rename the new plan's nodes and GPUs so that as few jobs as
 * possible change GPUs. Only jobs in both plans (on the same GPU type) count. Hosts are interchangeable within
 * a class (GPU type × GPUs per host), so each class is its own problem. Node-then-GPU (`relabelNodes`) keeps a
 * job's GPUs of one node together, so consolidation is kept; then GPUs carrying only 1-GPU jobs may move on
 * their own (`refloatSingleGpuWork`), which recovers the moves a node-level renaming cannot avoid when a new
 * plan groups small jobs into nodes differently from the old one.
 */
export const relabelPlan = (input: RelabelInput): RelabelResult => {
  const assignments = input.assignments ?? new GpuAssignmentMemo();
  const { classes, where } = input.classes ?? hostClasses(input.hosts, input.classOf);
  // One pass over each plan: at 10,000 jobs a pass is mostly waiting on memory (allocation → slices → GPUs).
  const { oldGpus, newGpus, jobIds, contents } = readPlans(classes, where, input.current, input.plan);

  const maps = new Map<NodeClass, Int32Array>();
  const skip = input.skipUnchangedClasses ?? true;
  const float = input.floatSingleGpuWork ?? true;
  const spans = skip ? new SpanCheck(oldGpus.length) : undefined;
  const answers = skip && float && input.classes ? input.answers : undefined;
  for (const cls of classes) {
    const content = contents.get(cls)!;
    const { contentOld, contentNew, pinned, occupied } = content;
    const verdict = spans && !content.fresh ? unchangedClass(cls, contentOld, contentNew, spans) : 'changed';
    if (verdict === 'unchanged') {
      maps.set(cls, identityMap(cls));
      continue;
    }
    const signature =
      answers && verdict === 'twins'
        ? classSignature(contentOld, contentNew, jobIds, oldGpus, newGpus)
        : undefined;
    const known = signature && answers!.get(cls, signature);
    if (known) {
      maps.set(cls, known);
      continue;
    }

    const map = relabelNodes(
      cls,
      contentOld,
      contentNew,
      oldGpus,
      newGpus,
      assignments,
      skip ? content.freshNodes : undefined,
    );
    if (float) {
      refloatSingleGpuWork({
        gpus: cls.gpus,
        contentOld,
        contentNew,
        oldGpus,
        newGpus,
        pinned,
        occupied,
        map,
        workspace: assignments.workspace,
      });
    }
    maps.set(cls, map);
    if (signature) answers!.set(cls, signature, map);
  }

  const plan = renamedPlan(input.plan, where, maps);
  let cost: number | undefined;
  return {
    plan,
    get cost() {
      cost ??= amortisedCostAfter(classes, contents, maps, oldGpus, newGpus);
      return cost;
    },
  };
};

type Where = ReadonlyMap<string, { readonly cls: NodeClass; readonly index: number }>;

/**
 * Both plans read in one pass each: throws unless every planned GPU is a GPU of a usable host of the allocation's
 * type; numbers densely (in plan order) the jobs in both rounds, on the same GPU type, whose current GPUs are all on
 * usable hosts; and fills each class's contents (jobs in plan order, as the per-class passes did).
 */
const readPlans = (
  classes: readonly NodeClass[],
  where: Where,
  current: ReadonlyMap<string, Allocation>,
  plan: ReadonlyMap<string, Allocation>,
): { oldGpus: number[]; newGpus: number[]; jobIds: string[]; contents: Map<NodeClass, ClassContent> } => {
  const contents = new Map<NodeClass, ClassContent>();
  for (const cls of classes) contents.set(cls, emptyClassContent(cls));
  const jobNumber = new Map<string, number>();
  const oldGpus: number[] = [];
  const newGpus: number[] = [];
  const jobIds: string[] = [];
  for (const [jobId, allocation] of plan) {
    const now = current.get(jobId);
    const gpus = allocationGpuCount(allocation);
    let j: number | undefined;
    if (now && now.gpuType === allocation.gpuType && allOnUsableHosts(now, where)) {
      j = oldGpus.length;
      jobNumber.set(jobId, j);
      oldGpus.push(allocationGpuCount(now));
      newGpus.push(gpus);
      jobIds.push(jobId);
    }
    for (const slice of allocation.slices) {
      const at = checkedHost(jobId, allocation, slice, where);
      const c = contents.get(at.cls)!;
      const node = c.contentNew[at.index]!;
      if (j === undefined && slice.gpus.length > 0) {
        c.fresh = true;
        c.freshNodes[at.index] = 1;
      }
      for (const g of slice.gpus) {
        if (j !== undefined) addJob(node, g, j);
        c.occupied[at.index * at.cls.gpus + g] = 1;
        if (gpus > 1) c.pinned[at.index * at.cls.gpus + g] = 1;
      }
    }
  }
  for (const [jobId, allocation] of current) {
    const j = jobNumber.get(jobId);
    if (j === undefined) continue;
    for (const slice of allocation.slices) {
      const at = where.get(slice.hostId);
      if (!at) continue;
      const node = contents.get(at.cls)!.contentOld[at.index]!;
      for (const g of slice.gpus) addJob(node, g, j);
    }
  }
  return { oldGpus, newGpus, jobIds, contents };
};

/** Where a planned slice's host sits; throws unless it is a usable host of the allocation's type with those GPUs. */
const checkedHost = (
  jobId: string,
  allocation: Allocation,
  slice: HostSlice,
  where: Where,
): { readonly cls: NodeClass; readonly index: number } => {
  const at = where.get(slice.hostId);
  if (!at) throw new Error(`relabel: job ${jobId} is planned on host ${slice.hostId}, not a usable host`);
  const host = at.cls.hosts[at.index]!;
  if (host.gpuType !== allocation.gpuType)
    throw new Error(
      `relabel: job ${jobId} is planned as ${allocation.gpuType} on ${host.id}, a ${host.gpuType} host`,
    );
  for (const g of slice.gpus) {
    if (!(Number.isInteger(g) && g >= 0 && g < host.gpuCount))
      throw new Error(
        `relabel: job ${jobId} is planned on GPU ${g} of ${host.id}, which has ${host.gpuCount}`,
      );
  }
  return at;
};

const allOnUsableHosts = (allocation: Allocation, where: Where): boolean => {
  for (const slice of allocation.slices) if (!where.has(slice.hostId)) return false;
  return true;
};

/** The plan on physical GPUs after the renaming `maps`. */
const renamedPlan = (
  logical: ReadonlyMap<string, Allocation>,
  where: Where,
  maps: ReadonlyMap<NodeClass, Int32Array>,
): Map<string, Allocation> => {
  const plan = new Map<string, Allocation>();
  for (const [jobId, allocation] of logical) {
    // Renamed onto itself: the very allocation (what a fresh copy would equal), so consumers may compare by identity.
    if (keptAsIs(allocation, where, maps)) {
      plan.set(jobId, allocation);
      continue;
    }
    plan.set(jobId, renamed(allocation, where, maps));
  }
  return plan;
};

const renamed = (
  allocation: Allocation,
  where: Where,
  maps: ReadonlyMap<NodeClass, Int32Array>,
): Allocation => {
  const byHost = new Map<string, number[]>();
  for (const slice of allocation.slices) {
    const at = where.get(slice.hostId)!;
    const map = maps.get(at.cls)!;
    for (const g of slice.gpus) {
      const physical = map[at.index * at.cls.gpus + g]!;
      const hostId = at.cls.hosts[Math.floor(physical / at.cls.gpus)]!.id;
      const list = byHost.get(hostId) ?? [];
      list.push(physical % at.cls.gpus);
      byHost.set(hostId, list);
    }
  }
  // By push, not map: one array kind however hot this is (see `copiedSlices`).
  const slices: HostSlice[] = [];
  for (const [hostId, gpus] of byHost) slices.push({ hostId, gpus: gpus.sort((a, b) => a - b) });
  return withSlices(allocation, slices);
};

/** The amortised migration cost of the renaming `maps`: per class, everything out and in, less what stays. */
const amortisedCostAfter = (
  classes: readonly NodeClass[],
  contents: ReadonlyMap<NodeClass, ClassContent>,
  maps: ReadonlyMap<NodeClass, Int32Array>,
  oldGpus: readonly number[],
  newGpus: readonly number[],
): number => {
  let cost = 0;
  for (const cls of classes) {
    const n = cls.hosts.length;
    const { contentOld, contentNew } = contents.get(cls)!;
    const map = maps.get(cls)!;
    for (let p = 0; p < n; p++) cost += moveCost(contentOld[p]!, oldGpus) + moveCost(contentNew[p]!, newGpus);
    for (let q = 0; q < n; q++) {
      for (let b = 0; b < cls.gpus; b++) {
        const physical = map[q * cls.gpus + b]!;
        const old = contentOld[Math.floor(physical / cls.gpus)]![physical % cls.gpus]!;
        cost -= sharedSaving(old, contentNew[q]![b]!, oldGpus, newGpus);
      }
    }
  }
  return cost;
};

/**
 * Whether relabelling leaves an allocation exactly as it is: each slice's GPUs are renamed among themselves on the
 * same host, and its slices are already in the renamed form (distinct hosts, each with GPUs, ascending).
 */
const keptAsIs = (
  allocation: Allocation,
  where: ReadonlyMap<string, { cls: NodeClass; index: number }>,
  maps: ReadonlyMap<NodeClass, Int32Array>,
): boolean => {
  const { slices } = allocation;
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i]!;
    if (slice.gpus.length === 0) return false;
    for (let k = 0; k < i; k++) if (slices[k]!.hostId === slice.hostId) return false;
    const at = where.get(slice.hostId)!;
    const map = maps.get(at.cls)!;
    const base = at.index * at.cls.gpus;
    for (let k = 0; k < slice.gpus.length; k++) {
      const g = slice.gpus[k]!;
      if (k > 0 && !(slice.gpus[k - 1]! < g)) return false;
      // The renaming is one-to-one, so GPUs that all land among the slice's own GPUs give back exactly those.
      const physical = map[base + g]! - base;
      if (physical < 0 || physical >= at.cls.gpus || !slice.gpus.includes(physical)) return false;
    }
  }
  return true;
};

interface ClassContent {
  readonly contentOld: number[][][];
  readonly contentNew: number[][][];
  /** A GPU carrying a multi-GPU job (in the new plan) must stay with that job's other GPUs on its node. */
  readonly pinned: Uint8Array;
  readonly occupied: Uint8Array;
  /** Whether a planned job that is not in both plans (a start, or a change of GPU type) has GPUs in the class. */
  fresh: boolean;
  /** Per node of the class: whether such a job has GPUs on it. */
  readonly freshNodes: Uint8Array;
}

// The content of every GPU without jobs: shared, never written (`addJob` replaces it on a GPU's first job).
const NO_JOBS: number[] = [];

const emptyClassContent = (cls: NodeClass): ClassContent => ({
  contentOld: emptyNodes(cls),
  contentNew: emptyNodes(cls),
  pinned: new Uint8Array(cls.hosts.length * cls.gpus),
  occupied: new Uint8Array(cls.hosts.length * cls.gpus),
  fresh: false,
  freshNodes: new Uint8Array(cls.hosts.length),
});

/**
 * One empty content per node, by push: an optimised `map` returns a holey array where the interpreter's is packed,
 * and every stage reading the contents (the renaming, its skip tests, the floating of 1-GPU work), compiled in one
 * policy's run, was thrown away ('wrong map') in the next one's.
 */
const emptyNodes = (cls: NodeClass): number[][][] => {
  const nodes: number[][][] = [];
  for (let p = 0; p < cls.hosts.length; p++) nodes.push(new Array<number[]>(cls.gpus).fill(NO_JOBS));
  return nodes;
};

/**
 * Whether the class's renaming keeps every job on it on the same GPUs, so that solving it can be skipped
 * ('unchanged'): every GPU holds the same jobs in both plans, every planned job on the class is in both plans (checked
 * by the caller: no `fresh` job), and no two nodes holding jobs hold the same jobs GPU for GPU (a job spread evenly
 * over two nodes and alone on them: the nodes could swap names at equal cost, and which one the solver picks is its
 * own tie-break: 'twins', solved, or answered by `ClassAnswers`; 'changed' otherwise).
 * Then the exact node assignment has one optimum, each non-empty node onto itself (a node saves all its content only
 * with a node of the same content), and its exact GPU assignment — like the floating of 1-GPU work after it — sends
 * every GPU to one holding the very same jobs: each allocation is renamed onto its own GPUs, which the identity gives
 * too (empty GPUs carry nothing, so where they go changes no allocation).
 */
const unchangedClass = (
  cls: NodeClass,
  contentOld: readonly (readonly (readonly number[])[])[],
  contentNew: readonly (readonly (readonly number[])[])[],
  spans: SpanCheck,
): 'unchanged' | 'twins' | 'changed' => {
  spans.nextClass();
  let spread = false;
  for (let p = 0; p < cls.hosts.length; p++) {
    const before = contentOld[p]!;
    const after = contentNew[p]!;
    for (let g = 0; g < cls.gpus; g++) {
      const was = before[g]!;
      const now = after[g]!;
      if (was.length !== now.length) return 'changed';
      for (const j of now) {
        if (!was.includes(j)) return 'changed';
        if (!spans.onOneNode(j, p)) spread = true;
      }
      for (const j of was) if (!now.includes(j)) return 'changed';
    }
  }
  return !spread || distinctNodes(contentNew) ? 'unchanged' : 'twins';
};

/** Whether no two nodes holding jobs hold the same jobs GPU for GPU (in any GPU order). */
const distinctNodes = (content: readonly (readonly (readonly number[])[])[]): boolean => {
  const seen = new Set<string>();
  for (const node of content) {
    const gpus: string[] = [];
    for (const jobs of node) if (jobs.length > 0) gpus.push([...jobs].sort((a, b) => a - b).join(','));
    if (gpus.length === 0) continue;
    const key = gpus.sort().join(';');
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
};

/** Per job number, the node of the current class it was last seen on (classes are checked one after another). */
class SpanCheck {
  // Per job j: [2j] the class it was last seen in, [2j + 1] its node there (one array: made every relabelling).
  private readonly seen: Int32Array;
  private current = 0;

  constructor(jobs: number) {
    this.seen = new Int32Array(2 * jobs);
  }

  nextClass(): void {
    this.current++;
  }

  /** Records job j on node p of the current class; false when it was already seen on another node of it. */
  onOneNode(j: number, p: number): boolean {
    if (this.seen[2 * j] === this.current) return this.seen[2 * j + 1] === p;
    this.seen[2 * j] = this.current;
    this.seen[2 * j + 1] = p;
    return true;
  }
}

const identityMap = (cls: NodeClass): Int32Array => {
  const map = new Int32Array(cls.hosts.length * cls.gpus);
  for (let l = 0; l < map.length; l++) map[l] = l;
  return map;
};

const addJob = (node: number[][], gpu: number, j: number): void => {
  const jobs = node[gpu]!;
  if (jobs === NO_JOBS) node[gpu] = [j];
  else jobs.push(j);
};

/**
 * Tesserae's amortised cost of moving from `current` to `plan`, both on physical GPUs, without renaming: per
 * GPU, 0.5/g for every job (in both plans, same GPU type) that leaves it and 0.5/g for every one that arrives.
 */
export const amortisedMigrationCost = (
  current: ReadonlyMap<string, Allocation>,
  plan: ReadonlyMap<string, Allocation>,
): number => {
  const onGpu = (allocations: ReadonlyMap<string, Allocation>, other: ReadonlyMap<string, Allocation>) => {
    const byGpu = new Map<string, { job: string; share: number }[]>();
    for (const [jobId, allocation] of allocations) {
      const counterpart = other.get(jobId);
      if (!counterpart || counterpart.gpuType !== allocation.gpuType) continue;
      const g = allocationGpuCount(allocation);
      for (const slice of allocation.slices) {
        for (const gpu of slice.gpus) {
          const key = `${slice.hostId}#${gpu}`;
          const list = byGpu.get(key) ?? [];
          list.push({ job: jobId, share: 0.5 / g });
          byGpu.set(key, list);
        }
      }
    }
    return byGpu;
  };
  const before = onGpu(current, plan);
  const after = onGpu(plan, current);
  let cost = 0;
  const differ = (a: Map<string, { job: string; share: number }[]>, b: typeof a) => {
    for (const [key, jobs] of a) {
      const there = new Set((b.get(key) ?? []).map((e) => e.job));
      for (const e of jobs) if (!there.has(e.job)) cost += e.share;
    }
  };
  differ(before, after);
  differ(after, before);
  return cost;
};
