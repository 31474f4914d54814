import { Ec2Error } from './errors.ts';
import {
  type Filter,
  INSTANCE_STATE_CODES,
  type Instance,
  type InstanceTopology,
  type LaunchTemplate,
  type Tag,
} from './types.ts';

/**
 * EC2 `Filter.N` semantics: every filter must match (AND), any of a filter's values may
 * match (OR), and values are globs where `*` is any run of characters and `?` one character.
 * `fieldValues` returns the resource's values for a filter name, or undefined if the name is
 * not a filter of that resource (then EC2 answers InvalidParameterValue, and so do we).
 */
export function matchesFilters(
  filters: readonly Filter[],
  fieldValues: (filterName: string) => readonly string[] | undefined,
): boolean {
  return filters.every((filter) => {
    const actual = fieldValues(filter.name);
    if (actual === undefined) {
      throw new Ec2Error('InvalidParameterValue', `The filter '${filter.name}' is invalid`);
    }
    const patterns = filter.values.map(globToRegExp);
    return actual.some((value) => patterns.some((pattern) => pattern.test(value)));
  });
}

export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '\\' && i + 1 < glob.length) {
      source += escapeRegExp(glob[++i]!);
    } else if (ch === '*') {
      source += '.*';
    } else if (ch === '?') {
      source += '.';
    } else {
      source += escapeRegExp(ch);
    }
  }
  return new RegExp(`^${source}$`, 's');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function tagFieldValues(tags: readonly Tag[], filterName: string): string[] | undefined {
  if (filterName.startsWith('tag:')) {
    const key = filterName.slice(4);
    return tags.filter((tag) => tag.key === key).map((tag) => tag.value);
  }
  if (filterName === 'tag-key') return tags.map((tag) => tag.key);
  if (filterName === 'tag-value') return tags.map((tag) => tag.value);
  return undefined;
}

const optional = (value: string | undefined): string[] => (value === undefined ? [] : [value]);

export function instanceFieldValues(instance: Instance, filterName: string): string[] | undefined {
  switch (filterName) {
    case 'instance-id':
      return [instance.instanceId];
    case 'instance-type':
      return [instance.instanceType];
    case 'instance-state-name':
      return [instance.state];
    case 'instance-state-code':
      return [String(INSTANCE_STATE_CODES[instance.state])];
    case 'instance-lifecycle':
      return optional(instance.instanceLifecycle);
    case 'availability-zone':
      return [instance.availabilityZone];
    case 'image-id':
      return [instance.imageId];
    case 'private-ip-address':
      return [instance.privateIpAddress];
    case 'private-dns-name':
      return [instance.privateDnsName];
    case 'reservation-id':
      return [instance.reservationId];
    case 'client-token':
      return optional(instance.clientToken);
    case 'key-name':
      return optional(instance.keyName);
    case 'subnet-id':
      return optional(instance.subnetId);
    case 'spot-instance-request-id':
      return optional(instance.spotInstanceRequestId);
    default:
      return tagFieldValues(instance.tags, filterName);
  }
}

export function launchTemplateFieldValues(
  template: LaunchTemplate,
  filterName: string,
): string[] | undefined {
  switch (filterName) {
    case 'launch-template-name':
      return [template.launchTemplateName];
    case 'create-time':
      return [new Date(template.createTime).toISOString()];
    default:
      return tagFieldValues(template.tags, filterName);
  }
}

export function topologyFieldValues(topology: InstanceTopology, filterName: string): string[] | undefined {
  switch (filterName) {
    case 'instance-type':
      return [topology.instanceType];
    case 'availability-zone':
      return [topology.availabilityZone];
    case 'zone-id':
      return [topology.zoneId];
    default:
      return undefined;
  }
}
