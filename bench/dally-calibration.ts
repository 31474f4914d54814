import { getModelProfile } from '../lib/core/catalog/models.ts';
import type { PerfModel, ThroughputQuery } from '../lib/core/model/perf.ts';
import { LEVELS } from '../lib/core/model/topology.ts';
import { dallyPerfParameters } from '../lib/core/plugins/dally/perf.ts';
import {
  commShare,
  TABLE_I,
  TABLE_I_MODELS,
  TABLE_I_REFERENCE,
} from '../lib/core/plugins/dally/table-one.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import type { BenchSuite } from './types.ts';

/** Gavel's V100 job types and Pollux's T4 applications that are also Table I models (per-GPU batches they measured). */
const GAVEL_CHECKS = [
  { model: 'resnet18', localBatches: [32, 64, 128] },
  { model: 'resnet50', localBatches: [32, 64, 128] },
];
const POLLUX_CHECKS = [
  { model: 'resnet18', localBatches: [64, 128] },
  { model: 'resnet50', localBatches: [32, 64] },
];
const POLLUX_SHAPES = [
  { gpus: 8, hosts: 2 },
  { gpus: 8, hosts: 8 },
  { gpus: 16, hosts: 4 },
];

const share = (perf: PerfModel, q: ThroughputQuery): number => {
  const t = perf.throughput(q);
  return t.iterationsPerSecond > 0 ? t.commSeconds / t.computeSeconds : Number.NaN;
};

const pct = (x: number): number => Math.round(x * 1000) / 10;

/**
 * The communication calibration behind the Dally benchmark: Table I reproduced by the calibrated model (8 × A100),
 * and a cross-check of the same calibration against measured multi-GPU placements (Gavel's consolidated and
 * unconsolidated V100 runs, Pollux's T4 placements) beside the default (EC2) model. Shares are exposed communication
 * as a percentage of compute per iteration.
 */
export const dallyCalibrationSuite: BenchSuite = {
  name: 'dally-calibration',
  description:
    'Dally Table I calibration, and the calibrated communication model against Gavel/Pollux measurements',
  columns: [
    'setup',
    'model',
    'gpuType',
    'gpus',
    'hosts',
    'level',
    'localBatch',
    'referencePercent',
    'tableIModelPercent',
    'defaultModelPercent',
  ],
  *run({ log }) {
    const calibrated = loadDefaultPerfModel({ parameters: dallyPerfParameters() });
    const plain = loadDefaultPerfModel();
    log('dally-calibration: Table I');
    for (const model of TABLE_I_MODELS) {
      const profile = getModelProfile(model);
      for (const level of LEVELS) {
        const ours = commShare(calibrated, profile, level);
        const paper = TABLE_I[model]![level];
        yield {
          suite: 'dally-calibration',
          setup: 'table-i',
          policy: '-',
          model,
          gpuType: TABLE_I_REFERENCE.gpuType,
          gpus: TABLE_I_REFERENCE.gpus,
          hosts: TABLE_I_REFERENCE.shapes[level].hosts,
          level,
          localBatch: profile.defaultBatchSize,
          referencePercent: pct(paper),
          tableIModelPercent: pct(ours),
          defaultModelPercent: pct(commShare(plain, profile, level)),
          errorPercent: pct(ours / paper - 1),
        };
      }
    }
    log('dally-calibration: cross-check against measured placements');
    const measured = calibrated.measured;
    const checks: {
      source: string;
      gpuType: string;
      model: string;
      localBatch: number;
      gpus: number;
      hosts: number;
    }[] = [];
    for (const { model, localBatches } of GAVEL_CHECKS) {
      for (const localBatch of localBatches) {
        for (const gpus of [2, 4, 8]) {
          checks.push({ source: 'gavel', gpuType: 'V100-16GB', model, localBatch, gpus, hosts: 1 });
          checks.push({ source: 'gavel', gpuType: 'V100-16GB', model, localBatch, gpus, hosts: gpus });
        }
      }
    }
    for (const { model, localBatches } of POLLUX_CHECKS) {
      for (const localBatch of localBatches) {
        for (const { gpus, hosts } of POLLUX_SHAPES)
          checks.push({ source: 'pollux', gpuType: 'T4', model, localBatch, gpus, hosts });
      }
    }
    for (const c of checks) {
      const query: ThroughputQuery = {
        model: c.model,
        batchSize: c.localBatch * c.gpus,
        gpuType: c.gpuType,
        gpus: c.gpus,
        shape: { level: c.hosts === 1 ? 'machine' : 'rack', hosts: c.hosts },
      };
      const hit = measured?.tryThroughput(query);
      if (hit?.source !== 'measured') continue;
      yield {
        suite: 'dally-calibration',
        setup: `cross-check/${c.source}`,
        policy: '-',
        model: c.model,
        gpuType: c.gpuType,
        gpus: c.gpus,
        hosts: c.hosts,
        level: query.shape.level,
        localBatch: c.localBatch,
        referencePercent: pct(hit.commSeconds / hit.computeSeconds),
        tableIModelPercent: pct(share(calibrated.analytic, query)),
        defaultModelPercent: pct(share(plain.analytic, query)),
      };
    }
  },
};
