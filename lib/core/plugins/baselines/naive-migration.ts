import type { MigrateStage } from '../../framework/stages.ts';

/**
 * Gavel's rule, for comparison with `relabelMigration`: the plan's GPU ids are taken as physical ids, and a job
 * whose ids differ from the ones it holds migrates (Tesserae §2: three migrations in Figure 1 where renaming
 * needs none). Nothing is renamed.
 */
export const naiveMigration: MigrateStage = {
  name: 'naive',
  relabel: (_ordered, plan) => plan,
};
