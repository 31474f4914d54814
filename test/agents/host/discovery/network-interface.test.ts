import assert from 'node:assert/strict';
import type { NetworkInterfaceInfo } from 'node:os';
import { test } from 'node:test';
import {
  interfaceForAddress,
  socketInterfaceEnv,
} from '../../../../agents/host/discovery/network-interface.ts';

const v4 = (address: string, netmask: string): NetworkInterfaceInfo => ({
  address,
  netmask,
  family: 'IPv4',
  mac: '00:00:00:00:00:00',
  internal: address.startsWith('127.'),
  cidr: null,
});
// An EC2 host: loopback and its primary ENI.
const interfaces = {
  lo: [v4('127.0.0.1', '255.0.0.0')],
  ens5: [v4('10.0.1.23', '255.255.240.0')],
};

test('the interface holding the address, or whose subnet contains it', () => {
  assert.equal(interfaceForAddress('10.0.1.23', interfaces), 'ens5');
  assert.equal(interfaceForAddress('127.0.0.1', interfaces), 'lo');
  assert.equal(interfaceForAddress('127.0.0.5', interfaces), 'lo', 'the local cloud hands out 127.0.x.y');
  assert.equal(interfaceForAddress('10.0.14.9', interfaces), 'ens5');
  assert.equal(interfaceForAddress('192.168.0.1', interfaces), null);
  assert.equal(interfaceForAddress('ip-10-0-1-23.ec2.internal', interfaces), null);
});

test('workers get the interface for gloo and NCCL, or nothing when it is unknown', () => {
  assert.deepEqual(socketInterfaceEnv('ens5'), { GLOO_SOCKET_IFNAME: 'ens5', NCCL_SOCKET_IFNAME: 'ens5' });
  assert.deepEqual(socketInterfaceEnv(null), {});
});
