export * from './formulas.ts';
export * from './gpus.ts';
export * from './instances.ts';
export * from './models.ts';
export * from './names.ts';
export * from './skew.ts';
export * from './user-models.ts';
