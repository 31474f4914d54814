export * from './action.ts';
export * from './cluster.ts';
export * from './gpu.ts';
export * from './job.ts';
export * from './perf.ts';
export * from './plan.ts';
export * from './state.ts';
export * from './topology.ts';
