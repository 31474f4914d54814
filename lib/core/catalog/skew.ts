import { findModelProfile } from './models.ts';

/**
 * Tiresias's consolidation rule: models with large, skewed tensors (VGG, AlexNet, …) should be placed on
 * one machine. Models missing from the catalog count as low skew, Tiresias's default for models it has not
 * profiled (they accept any placement).
 */
export const isHighSkew = (model: string): boolean => findModelProfile(model)?.skew === 'high';
