import { InvalidArgumentError } from 'commander';

export const nonNegativeInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`expected a whole number ≥ 0, got "${value}"`);
  return n;
};

export const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`expected a whole number > 0, got "${value}"`);
  return n;
};

export const positiveNumber = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
};

export const nonNegativeNumber = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a number ≥ 0, got "${value}"`);
  return n;
};

export const commaList = (value: string): string[] => {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list');
  return items;
};

/** `--length-noise [spread]`: users' estimates are off by up to ×spread either way (2 = ×0.5–×2). */
export const lengthSpread = (value: string): number => {
  const spread = Number(value);
  if (!(Number.isFinite(spread) && spread >= 1))
    throw new InvalidArgumentError(`--length-noise: expected a spread ≥ 1 (2 = ×0.5–×2), got "${value}"`);
  return spread;
};
