export * from './blox.ts';
export * from './data-dir.ts';
export * from './errors.ts';
export * from './files.ts';
export * from './gavel.ts';
export * from './perf.ts';
export * from './pollux.ts';
