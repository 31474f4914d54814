export * from './assignment.ts';
export * from './hungarian.ts';
export * from './lapjv.ts';
export * from './sparse.ts';
export * from './transportation.ts';
