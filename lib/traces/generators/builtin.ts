import { sourceHostGpus } from '../reference-hosts.ts';
import type { Trace } from '../types.ts';
import type { ArrivalProcess } from './arrivals.ts';
import { empiricalShape } from './empirical.ts';
import { gavelShape } from './gavel.ts';
import type { ModelChoice } from './models.ts';
import { shockwaveShape } from './shockwave.ts';
import { generateWorkload, type ShapeSampler } from './workload.ts';

/** Job-size samplers a builtin workload can use. */
export const BUILTIN_SIZES = ['philly', 'gavel', 'shockwave'] as const;
export type BuiltinSizes = (typeof BUILTIN_SIZES)[number];

export const BUILTIN_GRAMMAR = [
  'philly',
  'gavel:<jobs>:<rate>',
  'shockwave:<jobs>:<rate>',
  'poisson:<jobs>:<rate>[:<sizes>]',
  'batch:<jobs>[:<sizes>]',
] as const;

/** The builtin trace names and their arguments, for error messages and help. */
export const GRAMMAR_HELP =
  `builtin traces: ${BUILTIN_GRAMMAR.join(' | ')}; <jobs> a positive integer, <rate> jobs per hour (> 0), ` +
  `<sizes> one of ${BUILTIN_SIZES.join(', ')} (default philly)`;

/** What a builtin trace name asks for. */
export type BuiltinSpec =
  | { kind: 'philly' }
  | { kind: 'generated'; name: string; jobs: number; arrivals: ArrivalProcess; sizes: BuiltinSizes };

export class BuiltinTraceNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuiltinTraceNameError';
  }
}

const HEADS = ['philly', 'gavel', 'shockwave', 'poisson', 'batch'];

/** True when `name` is meant as a builtin (its part before the first `:` is a builtin keyword), even if malformed. */
export const isBuiltinTraceName = (name: string): boolean => HEADS.includes(name.split(':')[0] ?? '');

/**
 * Parses a builtin trace name (grammar in `BUILTIN_GRAMMAR`). Errors name the bad part, e.g.
 * `gavel:abc:80: <jobs> must be a positive integer, got "abc"`.
 */
export const parseBuiltinTraceName = (name: string): BuiltinSpec => {
  const parts = name.split(':');
  const [head, ...args] = parts;
  const fail = (what: string): never => {
    throw new BuiltinTraceNameError(`${name}: ${what}; ${GRAMMAR_HELP}`);
  };
  const jobsOf = (raw: string | undefined): number =>
    raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0
      ? Number(raw)
      : fail(`<jobs> must be a positive integer, got ${JSON.stringify(raw ?? '')}`);
  const rateOf = (raw: string | undefined): number => {
    const rate = raw !== undefined && /^(\d+\.?\d*|\.\d+)$/.test(raw) ? Number(raw) : Number.NaN;
    return rate > 0
      ? rate
      : fail(`<rate> must be a positive number of jobs per hour, got ${JSON.stringify(raw ?? '')}`);
  };
  const sizesOf = (raw: string | undefined): BuiltinSizes =>
    raw === undefined
      ? 'philly'
      : (BUILTIN_SIZES as readonly string[]).includes(raw)
        ? (raw as BuiltinSizes)
        : fail(`<sizes> must be one of ${BUILTIN_SIZES.join(', ')}, got ${JSON.stringify(raw)}`);
  const arity = (min: number, max: number): void => {
    if (args.length < min || args.length > max)
      fail(
        `${head} takes ${min === max ? min : `${min} or ${max}`} argument${max === 1 ? '' : 's'}, got ${args.length}`,
      );
  };

  switch (head) {
    case 'philly':
      arity(0, 0);
      return { kind: 'philly' };
    case 'gavel':
    case 'shockwave': {
      arity(2, 2);
      const jobs = jobsOf(args[0]);
      const ratePerHour = rateOf(args[1]);
      return { kind: 'generated', name, jobs, arrivals: { kind: 'poisson', ratePerHour }, sizes: head };
    }
    case 'poisson': {
      arity(2, 3);
      const jobs = jobsOf(args[0]);
      const ratePerHour = rateOf(args[1]);
      return {
        kind: 'generated',
        name,
        jobs,
        arrivals: { kind: 'poisson', ratePerHour },
        sizes: sizesOf(args[2]),
      };
    }
    case 'batch':
      arity(1, 2);
      return {
        kind: 'generated',
        name,
        jobs: jobsOf(args[0]),
        arrivals: { kind: 'batch' },
        sizes: sizesOf(args[1]),
      };
    default:
      return fail(`unknown builtin ${JSON.stringify(head ?? '')}`);
  }
};

/** True when building `spec` needs the imported Philly trace. */
export const needsPhillyTrace = (spec: BuiltinSpec): boolean =>
  spec.kind === 'philly' || spec.sizes === 'philly';

export interface BuiltinBuildOptions {
  seed: number;
  /** Models for generated jobs; default Gavel's job types. */
  models?: readonly ModelChoice[];
  /** The imported Philly list, required when `needsPhillyTrace(spec)`. */
  philly?: Trace;
  /** Largest GPU demand drawn from Philly (jobs asking more are not sampled). */
  maxGpus?: number;
}

const hostGpusOf = (referenceHostGpus: number | undefined): { referenceHostGpus?: number } =>
  referenceHostGpus === undefined ? {} : { referenceHostGpus };

/** Builds a builtin trace (pure: the Philly list, when needed, is passed in). */
export const buildBuiltinTrace = (spec: BuiltinSpec, options: BuiltinBuildOptions): Trace => {
  const { seed, models, philly, maxGpus } = options;
  if (needsPhillyTrace(spec) && philly === undefined)
    throw new Error('buildBuiltinTrace: this builtin needs the Philly trace (options.philly)');
  if (spec.kind === 'philly') return philly!;
  const sampler: ShapeSampler =
    spec.sizes === 'gavel'
      ? gavelShape
      : spec.sizes === 'shockwave'
        ? shockwaveShape
        : empiricalShape(philly!, maxGpus === undefined ? {} : { maxGpus });
  return generateWorkload({
    name: spec.name,
    jobs: spec.jobs,
    arrivals: spec.arrivals,
    sampler,
    seed,
    idPrefix: spec.name.split(':')[0] ?? 'job',
    ...hostGpusOf(spec.sizes === 'philly' ? philly!.referenceHostGpus : sourceHostGpus(spec.sizes)),
    ...(models && { models }),
  });
};
