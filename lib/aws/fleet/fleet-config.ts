/**
 * How the round may size the fleet: the stack renders it as JSON into the round function's environment
 * (`TESSERA_FLEET`). Prices come from the catalog (on-demand list prices; Spot is charged against the
 * budget at that price too, an upper bound).
 */
import { z } from 'zod';

export const launchTemplateRefSchema = z.object({
  /** EC2 instance family, e.g. `g5`. */
  family: z.string().min(1),
  launchTemplateId: z.string().min(1),
  /** Instance types of the family the fleet may launch, from the catalog. */
  instanceTypes: z.array(z.string().min(1)).min(1),
});

export const fleetConfigSchema = z.object({
  capacityType: z.enum(['spot', 'on-demand']),
  /** USD per hour for all live instances together; 0 disables launching. */
  budgetPerHour: z.number().nonnegative(),
  /** Live instances at most (pending, active, draining): keep it within the account's EC2 quotas. */
  maxInstances: z.int().nonnegative(),
  /** At most this many instances launched by one round. */
  maxLaunchesPerRound: z.int().positive().default(8),
  /** An instance without work for this long is terminated. */
  idleCooldownSeconds: z.int().nonnegative(),
  /** A launched instance whose agent has not registered after this long is terminated. */
  registrationTimeoutSeconds: z.int().positive().default(900),
  /** A host with no heartbeat for this long is declared lost. */
  heartbeatTimeoutSeconds: z.int().positive().default(300),
  launchTemplates: z.array(launchTemplateRefSchema),
  /** Subnets to launch into, in order of preference: all of a launch go to one (one zone keeps jobs close). */
  subnetIds: z.array(z.string().min(1)).default([]),
});

export type FleetConfig = z.infer<typeof fleetConfigSchema>;
export type LaunchTemplateRef = z.infer<typeof launchTemplateRefSchema>;

/** Tags every instance of a cluster carries: how the fleet finds its instances. */
export const CLUSTER_TAG = 'tessera:cluster';
export const GPU_TYPE_TAG = 'tessera:gpu-type';
