import type { GpuTypeId } from '../model/gpu.ts';
import type { Cell } from '../model/plan.ts';
import type { Level } from '../model/topology.ts';
import type { Demand } from './stages.ts';

/**
 * A demand with every field of `Demand` present (those not given as undefined), in the order of its declaration:
 * allocation stages build their demands through here, so that a placement stage compiled for one policy's demands
 * (keep-then-fit, the wait info, the elastic tier) is not compiled again when another policy's, with other fields or
 * made by a spread, reach it (see `allocationOf`).
 */
export const demandOf = (
  gpuType: GpuTypeId,
  gpus: number,
  cell?: Cell,
  maxLevel?: Level,
  elastic?: Demand['elastic'],
): Demand => ({ gpuType, gpus, cell, maxLevel, elastic });

/** `demand` accepting placements up to `maxLevel` (`{ ...demand, maxLevel }`). */
export const withMaxLevel = (demand: Demand, maxLevel: Level): Demand =>
  demandOf(demand.gpuType, demand.gpus, demand.cell, maxLevel, demand.elastic);
