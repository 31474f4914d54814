/**
 * Which network interface carries the host's address. Gloo (and NCCL's bootstrap) pick an interface by
 * resolving the host name, which on many images yields 127.0.1.1: peers on other hosts then cannot connect back.
 * Naming the interface of the address the control plane hands out as the rendezvous fixes that.
 */
import type { NetworkInterfaceInfo } from 'node:os';

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** The interface holding `address` exactly, else the one whose IPv4 subnet contains it (127.0.0.5 → lo). */
export function interfaceForAddress(address: string, interfaces: Interfaces): string | null {
  const entries = Object.entries(interfaces).flatMap(([name, infos]) =>
    (infos ?? []).map((info) => ({ name, info })),
  );
  const exact = entries.find(({ info }) => info.address === address);
  if (exact) return exact.name;
  const target = ipv4Number(address);
  if (target === null) return null;
  const containing = entries.find(({ info }) => {
    if (info.family !== 'IPv4') return false;
    const base = ipv4Number(info.address);
    const mask = ipv4Number(info.netmask);
    return base !== null && mask !== null && (base & mask) >>> 0 === (target & mask) >>> 0;
  });
  return containing?.name ?? null;
}

/** Interface variables for workers; a job's own `env` (or the agent's environment) can still set them. */
export function socketInterfaceEnv(interfaceName: string | null): Record<string, string> {
  if (interfaceName === null) return {};
  return { GLOO_SOCKET_IFNAME: interfaceName, NCCL_SOCKET_IFNAME: interfaceName };
}

function ipv4Number(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}
