import { z } from 'zod';
import type { Cluster, Host } from '../core/model/cluster.ts';

const name = z.string().min(1).max(128);

const hostSchema = z.strictObject({
  id: name,
  gpuType: name,
  gpuCount: z.int().min(0).max(64),
  rack: name.optional(),
  network: name.optional(),
  zone: name.optional(),
  instanceType: name.optional(),
  lifecycle: z.enum(['on-demand', 'spot']).optional(),
});

const groupSchema = z.strictObject({
  gpuType: name,
  hosts: z.int().min(1).max(100_000),
  gpusPerHost: z.int().min(0).max(64),
  /** Machines under one bottom network node (one rack). */
  hostsPerRack: z.int().min(1).optional(),
  /** Racks per network spine / placement group; default all racks of the cluster share one network. */
  racksPerNetwork: z.int().min(1).optional(),
  zone: name.optional(),
  instanceType: name.optional(),
  lifecycle: z.enum(['on-demand', 'spot']).optional(),
});

/** A cluster file: explicit hosts, or groups of identical hosts expanded into racks. */
export const clusterSpecSchema = z
  .strictObject({
    name,
    description: z.string().max(1000).optional(),
    groups: z.array(groupSchema).optional(),
    hosts: z.array(hostSchema).optional(),
  })
  .refine((s) => (s.groups?.length ?? 0) + (s.hosts?.length ?? 0) > 0, {
    message: 'a cluster needs at least one entry in "groups" or "hosts"',
  });

export type ClusterSpec = z.infer<typeof clusterSpecSchema>;

/**
 * Expand a cluster spec into hosts. Racks are numbered per group, so GPU types never share a rack, as on
 * EC2 where each instance family sits in its own capacity blocks. `resolveGpuType` maps aliases to catalog ids.
 */
export const expandCluster = (
  spec: ClusterSpec,
  resolveGpuType: (id: string) => string = (id) => id,
): Cluster => {
  const hosts: Host[] = [];
  const ids = new Set<string>();
  const add = (host: Host) => {
    if (ids.has(host.id)) throw new Error(`cluster ${spec.name}: duplicate host id "${host.id}"`);
    ids.add(host.id);
    hosts.push(host);
  };
  (spec.groups ?? []).forEach((group, g) => {
    const gpuType = resolveGpuType(group.gpuType);
    const perRack = group.hostsPerRack ?? group.hosts;
    for (let i = 0; i < group.hosts; i++) {
      const rack = Math.floor(i / perRack);
      const network = group.racksPerNetwork ? Math.floor(rack / group.racksPerNetwork) : 0;
      add({
        id: `g${g}-h${i}`,
        gpuType,
        gpuCount: group.gpusPerHost,
        rack: `g${g}-r${rack}`,
        network: `net${network}`,
        zone: group.zone ?? 'zone-a',
        ...(group.instanceType ? { instanceType: group.instanceType } : {}),
        ...(group.lifecycle ? { lifecycle: group.lifecycle } : {}),
      });
    }
  });
  for (const host of spec.hosts ?? []) {
    add({
      id: host.id,
      gpuType: resolveGpuType(host.gpuType),
      gpuCount: host.gpuCount,
      rack: host.rack ?? `rack-${host.id}`,
      network: host.network ?? 'net0',
      zone: host.zone ?? 'zone-a',
      ...(host.instanceType ? { instanceType: host.instanceType } : {}),
      ...(host.lifecycle ? { lifecycle: host.lifecycle } : {}),
    });
  }
  const gpus = hosts.reduce((n, h) => n + h.gpuCount, 0);
  if (gpus === 0) throw new Error(`cluster ${spec.name}: has no GPUs`);
  return { name: spec.name, hosts };
};
