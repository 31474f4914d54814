import { introspectiveMigration } from '../migrate/introspective.ts';
import type { Policy } from '../stages.ts';
import { srtf } from './baselines.ts';

export const tessera: Policy = {
  ...srtf,
  name: 'tessera',
  description:
    "Tessera's own composition. Until the Crius, Dally, Tesserae and EasyScale stages land it equals the best baseline measured on the Philly week (srtf order, heterogeneity-aware type choice, consolidated placement) plus Gandiva's introspective consolidation.",
  migrate: introspectiveMigration,
};
