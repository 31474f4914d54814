import { GAVEL_MODELS, type ModelChoice } from '../traces/generators/models.ts';

/**
 * Models given to trace jobs that name none (Philly, Helios, PAI): Gavel's job types, because the shared Gavel table
 * has measured throughputs for them, so the executor's ground truth rests on data where it can.
 */
export const DEFAULT_MODEL_MIX: readonly ModelChoice[] = GAVEL_MODELS;
