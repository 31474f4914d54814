/**
 * Consolidation levels of a placement, from best to worst (Dally §1): the smallest tier that contains all of a job's GPUs.
 * On AWS: MACHINE = one EC2 instance, RACK = one bottom-layer network node, NETWORK = one placement group / AZ.
 */
export const LEVELS = ['machine', 'rack', 'network'] as const;
export type Level = (typeof LEVELS)[number];

export const levelRank = (level: Level): number => LEVELS.indexOf(level);

export const worseLevel = (a: Level, b: Level): Level => (levelRank(a) >= levelRank(b) ? a : b);
