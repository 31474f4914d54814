import { basename, join } from 'node:path';
import { loadCluster } from '../lib/clusters/load.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { resolveDataDir } from '../lib/data/data-dir.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { loadAllPolluxCurves } from '../lib/data/pollux-curves.ts';
import type { ReferenceHardware } from '../lib/sim/reference-placement.ts';
import { DEFAULT_REFERENCE_GPU, loadWorkload } from '../lib/sim/run.ts';
import { toJobSpecs } from '../lib/sim/workload.ts';
import { phillyTracePath } from '../lib/traces/load.ts';
import { parseTrace } from '../lib/traces/parse.ts';
import { readTrace } from '../lib/traces/read.ts';
import { sliceTrace } from '../lib/traces/slice.ts';
import { dallyWorkload } from './dally-workload.ts';
import { easyScaleWorkload, phillyRows } from './easyscale-workload.ts';
import { polluxStyleCsv } from './pollux-workload.ts';
import { PHILLY_BUSY_WEEK_START_DAY } from './sim.ts';

/** A workload on a cluster, with the simulator settings it is replayed under. */
export interface FlagshipWorkload {
  readonly cluster: Cluster;
  readonly jobs: readonly JobSpec[];
  readonly roundSeconds: number;
  readonly restartSeconds: number;
  /** The hardware the workload's lengths are meant on (its offered load is measured there; lib/sim/reference-placement.ts). */
  readonly reference: ReferenceHardware;
}

export interface FlagshipSetup {
  readonly name: string;
  build(perf: PerfModel, truth: PerfModel, seed: number): FlagshipWorkload;
}

const SIM = { roundSeconds: 60, restartSeconds: 30 } as const;

/** A trace (file or builtin generator) cut to a window, through the same path as `tessera sim`. */
const traceSetup = (
  name: string,
  request: { trace: string; cluster: string; skipDays?: number; days?: number; maxJobs?: number },
): FlagshipSetup => ({
  name,
  build: (_perf, _truth, seed) => {
    const w = loadWorkload({ ...request, seed });
    return {
      cluster: w.cluster,
      jobs: w.jobs,
      ...SIM,
      reference: w.reference,
    };
  },
});

/** A whole trace file on a cluster (`bench flagship --trace <file> --cluster <name>`), named `<file>@<cluster>`. */
export const traceFileSetup = (path: string, cluster: string): FlagshipSetup =>
  traceSetup(`${basename(path)}@${cluster}`, { trace: path, cluster });

const phillySetup = (
  cluster: string,
  days: number,
  maxJobs?: number,
  startDay: number = PHILLY_BUSY_WEEK_START_DAY,
): FlagshipSetup =>
  traceSetup(`philly-d${startDay}+${days}${maxJobs ? `/${maxJobs}` : ''}@${cluster}`, {
    trace: 'philly',
    cluster,
    skipDays: startDay,
    days,
    ...(maxJobs ? { maxJobs } : {}),
  });

const generatorSetup = (generator: string, cluster: string): FlagshipSetup =>
  traceSetup(`${generator}@${cluster}`, { trace: generator, cluster });

/** Dally's batch experiment: Philly 2–64-GPU jobs with Table I models, all arriving at once. */
const batchSetup = (jobs: number, cluster: string): FlagshipSetup => ({
  name: `batch:${jobs}@${cluster}`,
  build: (perf, truth, seed) => {
    const c = loadCluster(cluster);
    const philly = readTrace(phillyTracePath(), { format: 'philly' });
    const gpus = c.hosts.reduce((n, h) => n + h.gpuCount, 0);
    const { jobs: specs, reference } = dallyWorkload(philly, {
      arrivals: 'batch',
      jobs,
      seed,
      load: 1,
      clusterGpus: gpus,
      referenceGpuType: c.hosts[0]!.gpuType,
      perf,
      truth,
    });
    return {
      cluster: c,
      jobs: specs,
      roundSeconds: 300,
      restartSeconds: 30,
      reference,
    };
  },
});

/**
 * EasyScale's mixed experiment: rigid guaranteed jobs at half the cluster plus as much elastic best-effort work
 * (`load` per tier; other loads only for checks beyond the matrix).
 */
export const mixedElasticSetup = (jobs: number, cluster: string, load = 0.5): FlagshipSetup => ({
  name: `guaranteed+elastic:${jobs}@${cluster}${load === 0.5 ? '' : `/load${load}`}`,
  build: (perf, _truth, seed) => {
    const c = loadCluster(cluster);
    const philly = sliceTrace(readTrace(phillyTracePath(), { format: 'philly' }), {
      skipDays: PHILLY_BUSY_WEEK_START_DAY,
    });
    const rows = phillyRows(philly, jobs);
    const common = { seed, cluster: c, perf, load };
    const guaranteedRows = rows.filter((_, i) => i % 2 === 0);
    const elasticRows = rows.filter((_, i) => i % 2 === 1);
    const guaranteed = easyScaleWorkload(guaranteedRows, {
      ...common,
      jobs: guaranteedRows.length,
      idPrefix: 'g',
      elastic: false,
      phillySizes: true,
    });
    const elastic = easyScaleWorkload(elasticRows, {
      ...common,
      jobs: elasticRows.length,
      idPrefix: 'e',
      elastic: true,
    });
    return {
      cluster: c,
      jobs: [...guaranteed, ...elastic],
      roundSeconds: 60,
      restartSeconds: 20,
      // EasyScale's workload converts run times on the experiment's own hosts (bench/easyscale-workload.ts,
      // `bestShape`); its V100 hosts, the offered load's reference type, are the cluster's largest (8 GPUs).
      reference: { gpuType: 'V100-16GB', hostGpus: Math.max(...c.hosts.map((h) => h.gpuCount)) },
    };
  },
});

/** A Pollux-style workload (bench/pollux-workload.ts) through the Pollux importer: work from the training curves. */
const polluxSetup = (jobs: number, cluster: string): FlagshipSetup => ({
  name: `pollux-style:${jobs}@${cluster}`,
  build: (perf, _truth, seed) => {
    const c = loadCluster(cluster);
    const philly = sliceTrace(readTrace(phillyTracePath(), { format: 'philly' }), {
      skipDays: PHILLY_BUSY_WEEK_START_DAY,
    });
    const largestHost = Math.max(...c.hosts.map((h) => h.gpuCount));
    const csv = polluxStyleCsv(philly, { jobs, seed, windowSeconds: 8 * 3600, maxGpus: largestHost });
    const trace = parseTrace(csv, `pollux-style-${jobs}.csv`, {
      format: 'pollux',
      polluxCurves: loadAllPolluxCurves(resolveDataDir()),
    });
    const {
      jobs: specs,
      issues,
      reference,
    } = toJobSpecs(trace, { perf, referenceGpuType: DEFAULT_REFERENCE_GPU });
    if (trace.issues.length + issues.length > 0)
      throw new Error(`pollux-style workload: ${trace.issues.length + issues.length} rows rejected`);
    return { cluster: c, jobs: specs, ...SIM, reference: { gpuType: 'T4', hostGpus: reference.hostGpus } };
  },
});

const tiresiasSetup = (cluster: string, file = '60_job'): FlagshipSetup =>
  traceSetup(`${file === '60_job' ? 'tiresias-60' : `tiresias-${file}`}@${cluster}`, {
    trace: join(resolveDataDir(), 'tiresias', `${file}.csv`),
    cluster,
  });

/**
 * The flagship matrix (issue 11): Philly windows on the Crius clusters and AWS; Gavel- and Shockwave-style
 * generators on Tesserae's clusters and AWS; Dally's batch arrivals; EasyScale's guaranteed + elastic mix; a Tiresias
 * trace. Sizes are fixed by the workload's own papers' setups, not by results.
 */
export const FLAGSHIP_SETUPS: readonly FlagshipSetup[] = [
  phillySetup('crius-1280', 2),
  phillySetup('aws-mixed', 1),
  phillySetup('crius-testbed-64', 0.5),
  generatorSetup('gavel:300:15', 'tesserae-32'),
  generatorSetup('shockwave:300:80', 'tesserae-32'),
  generatorSetup('gavel:300:40', 'tesserae-80'),
  generatorSetup('shockwave:600:80', 'tesserae-80'),
  generatorSetup('gavel:200:30', 'aws-mixed'),
  generatorSetup('shockwave:300:80', 'aws-mixed'),
  batchSetup(200, 'dally-8r'),
  mixedElasticSetup(120, 'easyscale-64'),
  polluxSetup(160, 'pollux-64'),
  tiresiasSetup('tiresias-n32g4'),
];

export const QUICK_FLAGSHIP_SETUPS: readonly FlagshipSetup[] = [
  phillySetup('crius-1280', 0.25, 150),
  phillySetup('aws-mixed', 0.25, 100),
  phillySetup('crius-testbed-64', 0.25, 60),
  generatorSetup('gavel:60:15', 'tesserae-32'),
  generatorSetup('shockwave:80:80', 'tesserae-32'),
  generatorSetup('gavel:60:30', 'aws-mixed'),
  batchSetup(60, 'dally-8r'),
  mixedElasticSetup(40, 'easyscale-64'),
  polluxSetup(40, 'pollux-64'),
  tiresiasSetup('tiresias-n32g4'),
];

/**
 * The held-out matrix (issue 11: "the targets must also hold on public traces this issue does not name";
 * `bench flagship --held-out`). Chosen by a rule, before any run and never by results: the named matrix's workload
 * families, each on a window, cluster, job count or arrival rate the named matrix does not use —
 * - Philly windows at other start days (25, 30, 60, 70: busy days of the trace's active span, days 20–99; the named matrix uses day 49 only), spread over the Crius
 *   clusters, AWS and a Dally cluster (dally-16r);
 * - Gavel and Shockwave generators at other rates (10, 20, 40, 60 jobs/h) and on clusters the named matrix does not
 *   give them (tesserae-80-v100, dally-2r, dally-4r);
 * - Dally's batch arrivals on dally-16r (named: dally-8r); the Pollux-style workload on tesserae-32 (named:
 *   pollux-64); Tiresias's 60-job trace on aws-mixed and its other file (`tf_job.csv`, one job) on tiresias-n32g4.
 * Sizes follow the named lists: the quick matrix ~40–100 jobs per setup, the full one 120–300.
 */
export const HELD_OUT_FLAGSHIP_SETUPS: readonly FlagshipSetup[] = [
  phillySetup('crius-1280', 0.5, undefined, 30),
  phillySetup('aws-mixed', 1, undefined, 25),
  phillySetup('aws-mixed', 1, undefined, 60),
  phillySetup('crius-testbed-64', 0.5, undefined, 70),
  phillySetup('dally-16r', 1, undefined, 25),
  generatorSetup('gavel:200:20', 'tesserae-80-v100'),
  generatorSetup('shockwave:300:40', 'tesserae-80'),
  generatorSetup('gavel:200:60', 'dally-4r'),
  generatorSetup('shockwave:200:40', 'dally-2r'),
  batchSetup(200, 'dally-16r'),
  polluxSetup(120, 'tesserae-32'),
  tiresiasSetup('aws-mixed'),
  tiresiasSetup('tiresias-n32g4', 'tf_job'),
];

/** The quick variant (~1–2 min): the same rule at the named quick matrix's sizes; the one-job trace first (cheapest). */
export const QUICK_HELD_OUT_FLAGSHIP_SETUPS: readonly FlagshipSetup[] = [
  tiresiasSetup('tiresias-n32g4', 'tf_job'),
  phillySetup('crius-1280', 0.25, 150, 30),
  phillySetup('aws-mixed', 0.25, 100, 25),
  phillySetup('aws-mixed', 0.25, 100, 60),
  phillySetup('crius-testbed-64', 0.25, 60, 70),
  phillySetup('dally-16r', 0.25, 100, 25),
  generatorSetup('gavel:60:20', 'tesserae-80-v100'),
  generatorSetup('shockwave:80:40', 'tesserae-80'),
  generatorSetup('gavel:60:60', 'dally-4r'),
  generatorSetup('shockwave:60:40', 'dally-2r'),
  batchSetup(40, 'dally-16r'),
  polluxSetup(40, 'tesserae-32'),
  tiresiasSetup('aws-mixed'),
];

/** The matrix a run of `bench flagship` replays. */
export const flagshipSetups = (options: { quick: boolean; heldOut?: boolean }): readonly FlagshipSetup[] =>
  options.heldOut
    ? options.quick
      ? QUICK_HELD_OUT_FLAGSHIP_SETUPS
      : HELD_OUT_FLAGSHIP_SETUPS
    : options.quick
      ? QUICK_FLAGSHIP_SETUPS
      : FLAGSHIP_SETUPS;

export const flagshipPerf = (): PerfModel => loadDefaultPerfModel();
