export { type ArrivalProcess, arrivalTimes } from './arrivals.ts';
export {
  BUILTIN_GRAMMAR,
  BUILTIN_SIZES,
  type BuiltinBuildOptions,
  type BuiltinSizes,
  type BuiltinSpec,
  BuiltinTraceNameError,
  buildBuiltinTrace,
  isBuiltinTraceName,
  needsPhillyTrace,
  parseBuiltinTraceName,
} from './builtin.ts';
export { type EmpiricalOptions, empiricalShape } from './empirical.ts';
export {
  GAVEL_GPU_DEMAND,
  GAVEL_SHORT_JOB_PROBABILITY,
  type GeneratedTraceOptions,
  gavelShape,
  generateGavelTrace,
} from './gavel.ts';
export {
  type AssignModelsOptions,
  assignModels,
  GAVEL_MODELS,
  type ModelChoice,
  pickModel,
  validateModels,
} from './models.ts';
export { Random } from './random.ts';
export {
  generateShockwaveTrace,
  SHOCKWAVE_DURATIONS,
  SHOCKWAVE_GPU_DEMAND,
  SHOCKWAVE_SIZE_CLASSES,
  shockwaveShape,
} from './shockwave.ts';
export { generateWorkload, type JobShape, type ShapeSampler, type WorkloadOptions } from './workload.ts';
