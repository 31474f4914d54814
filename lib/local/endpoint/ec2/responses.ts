import { el, itemList, type XmlContent, type XmlElement } from '../xml.ts';
import type { ReservationView } from './model.ts';
import {
  INSTANCE_STATE_CODES,
  type Instance,
  type InstanceStateChange,
  type InstanceStateName,
  type InstanceTopology,
  type LaunchTemplate,
  type Tag,
} from './types.ts';

/** Typed results → EC2 XML elements, with the element names the SDK's EC2 protocol reads. */

const iso = (ms: number): string => new Date(ms).toISOString();

function tagSet(tags: readonly Tag[]): XmlElement | undefined {
  if (tags.length === 0) return undefined;
  return itemList('tagSet', tags, (tag) => [el('key', tag.key), el('value', tag.value)]);
}

function stateElement(tag: string, state: InstanceStateName): XmlElement {
  return el(tag, [el('code', INSTANCE_STATE_CODES[state]), el('name', state)]);
}

function instanceContent(instance: Instance): XmlContent {
  return [
    el('instanceId', instance.instanceId),
    el('imageId', instance.imageId),
    stateElement('instanceState', instance.state),
    el('privateDnsName', instance.privateDnsName),
    el('dnsName', ''),
    el('reason', instance.stateTransitionReason),
    el('keyName', instance.keyName),
    el('amiLaunchIndex', instance.amiLaunchIndex),
    el('productCodes', ''),
    el('instanceType', instance.instanceType),
    el('launchTime', iso(instance.launchTime)),
    el('placement', [
      el('availabilityZone', instance.availabilityZone),
      el('groupName', ''),
      el('tenancy', 'default'),
    ]),
    el('monitoring', el('state', 'disabled')),
    el('subnetId', instance.subnetId),
    el('privateIpAddress', instance.privateIpAddress),
    instance.stateReason
      ? el('stateReason', [
          el('code', instance.stateReason.code),
          el('message', instance.stateReason.message),
        ])
      : undefined,
    el('architecture', 'x86_64'),
    el('rootDeviceType', 'ebs'),
    el('rootDeviceName', '/dev/xvda'),
    el('instanceLifecycle', instance.instanceLifecycle),
    el('spotInstanceRequestId', instance.spotInstanceRequestId),
    el('virtualizationType', 'hvm'),
    el('clientToken', instance.clientToken),
    tagSet(instance.tags),
    el('hypervisor', 'xen'),
    instance.iamInstanceProfileArn
      ? el('iamInstanceProfile', [
          el('arn', instance.iamInstanceProfileArn),
          el('id', instanceProfileId(instance)),
        ])
      : undefined,
    el('ebsOptimized', false),
  ];
}

/** A stable instance-profile id derived from the ARN (AIPA + 17 characters, like EC2's). */
function instanceProfileId(instance: Instance): string {
  const arn = instance.iamInstanceProfileArn ?? '';
  let hash = 0;
  for (const ch of arn) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `AIPA${hash.toString(36).toUpperCase().padStart(17, '0').slice(0, 17)}`;
}

export function reservationContent(view: ReservationView, ownerId: string): XmlContent {
  return [
    el('reservationId', view.reservation.reservationId),
    el('ownerId', ownerId),
    el('groupSet', ''),
    itemList('instancesSet', view.instances, instanceContent),
  ];
}

export function describeInstancesContent(
  views: readonly ReservationView[],
  ownerId: string,
  nextToken?: string,
) {
  return [
    itemList('reservationSet', views, (view) => reservationContent(view, ownerId)),
    el('nextToken', nextToken),
  ];
}

export function terminateInstancesContent(changes: readonly InstanceStateChange[]): XmlContent {
  return itemList('instancesSet', changes, (change) => [
    el('instanceId', change.instanceId),
    stateElement('currentState', change.currentState),
    stateElement('previousState', change.previousState),
  ]);
}

export function launchTemplateContent(template: LaunchTemplate, accountId: string): XmlContent {
  return [
    el('launchTemplateId', template.launchTemplateId),
    el('launchTemplateName', template.launchTemplateName),
    el('createTime', iso(template.createTime)),
    el('createdBy', `arn:aws:iam::${accountId}:root`),
    el('defaultVersionNumber', 1),
    el('latestVersionNumber', 1),
    tagSet(template.tags),
  ];
}

export function describeInstanceTopologyContent(
  topologies: readonly InstanceTopology[],
  nextToken?: string,
): XmlContent {
  return [
    itemList('instanceSet', topologies, (t) => [
      el('instanceId', t.instanceId),
      el('instanceType', t.instanceType),
      itemList('networkNodeSet', t.networkNodes, (node) => node),
      el('availabilityZone', t.availabilityZone),
      el('zoneId', t.zoneId),
    ]),
    el('nextToken', nextToken),
  ];
}
