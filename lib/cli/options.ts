import { InvalidArgumentError } from 'commander';

export const nonNegativeInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`expected a whole number ≥ 0, got "${value}"`);
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
