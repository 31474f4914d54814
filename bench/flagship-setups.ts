import { join } from 'node:path';
import { loadCluster } from '../lib/clusters/load.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { resolveDataDir } from '../lib/data/data-dir.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { loadAllPolluxCurves } from '../lib/data/pollux-curves.ts';
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
  /** The GPU type the workload's lengths are meant on (its offered load is measured there). */
  readonly referenceGpuType: string;
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
    return { cluster: w.cluster, jobs: w.jobs, ...SIM, referenceGpuType: DEFAULT_REFERENCE_GPU };
  },
});

const phillySetup = (cluster: string, days: number, maxJobs?: number): FlagshipSetup =>
  traceSetup(`philly-d${PHILLY_BUSY_WEEK_START_DAY}+${days}${maxJobs ? `/${maxJobs}` : ''}@${cluster}`, {
    trace: 'philly',
    cluster,
    skipDays: PHILLY_BUSY_WEEK_START_DAY,
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
    const { jobs: specs } = dallyWorkload(philly, {
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
      referenceGpuType: c.hosts[0]!.gpuType,
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
      referenceGpuType: 'V100-16GB',
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
    const { jobs: specs, issues } = toJobSpecs(trace, { perf, referenceGpuType: DEFAULT_REFERENCE_GPU });
    if (trace.issues.length + issues.length > 0)
      throw new Error(`pollux-style workload: ${trace.issues.length + issues.length} rows rejected`);
    return { cluster: c, jobs: specs, ...SIM, referenceGpuType: 'T4' };
  },
});

const tiresiasSetup = (cluster: string): FlagshipSetup =>
  traceSetup(`tiresias-60@${cluster}`, {
    trace: join(resolveDataDir(), 'tiresias', '60_job.csv'),
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

export const flagshipPerf = (): PerfModel => loadDefaultPerfModel();
