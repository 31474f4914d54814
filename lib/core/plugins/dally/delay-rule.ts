import { type Level, levelRank } from '../../model/topology.ts';
import type { LevelCapacity } from './topology.ts';

/**
 * Dally's two delay timers, in seconds (`Infinity` = wait for ever): how long a job holds out for a machine-level
 * offer, then how much longer for a rack-level one.
 */
export interface DelayTimers {
  readonly machine: number;
  readonly rack: number;
}

/** The job's local answer to one offer; `record` = the level whose wait-time list the acceptance feeds. */
export type OfferDecision =
  | { readonly accept: false }
  | { readonly accept: true; readonly record?: 'machine' | 'rack' };

/**
 * Algorithm 1's timer adjustment: a job larger than a machine cannot wait for one (Tm = 0); a job larger than a rack
 * cannot wait for either (Tm = Tr = 0).
 */
export const effectiveTimers = (timers: DelayTimers, gpus: number, capacity: LevelCapacity): DelayTimers => {
  if (gpus > capacity.rack) return { machine: 0, rack: 0 };
  if (gpus > capacity.machine) return { machine: 0, rack: timers.rack };
  return timers;
};

/**
 * The worst level a job that has waited `waited` seconds accepts: machine until Tm has passed, rack until Tm + Tr,
 * then anything. `timers` must already be the effective ones.
 */
export const acceptableLevel = (waited: number, timers: DelayTimers): Level => {
  if (waited < timers.machine) return 'machine';
  if (waited < timers.machine + timers.rack) return 'rack';
  return 'network';
};

/**
 * Algorithm 1 (rebuilt, specs/dally.md §2): accept a machine offer at once; reject rack offers until Tm has passed and
 * network offers until Tm + Tr; machine and rack acceptances are recorded for the auto-tuner, network ones are not.
 */
export const decideOffer = (offer: Level, waited: number, timers: DelayTimers): OfferDecision => {
  if (levelRank(offer) > levelRank(acceptableLevel(waited, timers))) return { accept: false };
  return offer === 'network' ? { accept: true } : { accept: true, record: offer };
};
