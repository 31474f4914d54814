import type { QueryNode } from '../query-params.ts';
import { Ec2Error } from './errors.ts';
import type {
  Filter,
  LaunchSettings,
  MarketOptions,
  RunInstancesRequest,
  Tag,
  TagSpecification,
} from './types.ts';

/** Query-protocol parameters → the model's typed requests (names as the SDK serialises them). */

export function parseTags(node: QueryNode, listName = 'Tag'): Tag[] {
  return node.list(listName).map((tag, i) => {
    const key = tag.text('Key');
    if (key === undefined) throw new Ec2Error('MissingParameter', `${listName}.${i + 1}.Key is required`);
    return { key, value: tag.text('Value') ?? '' };
  });
}

export function parseTagSpecifications(node: QueryNode): TagSpecification[] {
  return node.list('TagSpecification').map((spec, i) => {
    const resourceType = spec.text('ResourceType');
    if (!resourceType) {
      throw new Ec2Error('MissingParameter', `TagSpecification.${i + 1}.ResourceType is required`);
    }
    return { resourceType, tags: parseTags(spec) };
  });
}

export function parseFilters(node: QueryNode): Filter[] {
  return node.list('Filter').map((filter, i) => {
    const name = filter.text('Name');
    if (!name) throw new Ec2Error('MissingParameter', `Filter.${i + 1}.Name is required`);
    return { name, values: filter.texts('Value') };
  });
}

function parseMarketOptions(node: QueryNode | undefined): MarketOptions | undefined {
  if (!node) return undefined;
  const marketType = node.text('MarketType');
  if (marketType !== 'spot' && marketType !== 'capacity-block') {
    throw new Ec2Error(
      'InvalidParameterValue',
      `Value (${marketType}) for parameter InstanceMarketOptions.MarketType is invalid; expected spot or capacity-block`,
    );
  }
  const spot = node.get('SpotOptions');
  const options: MarketOptions = { marketType };
  if (spot) {
    options.spotOptions = {};
    const maxPrice = spot.text('MaxPrice');
    if (maxPrice !== undefined) options.spotOptions.maxPrice = maxPrice;
    const spotInstanceType = spot.text('SpotInstanceType');
    if (spotInstanceType !== undefined) options.spotOptions.spotInstanceType = spotInstanceType;
    const behavior = spot.text('InstanceInterruptionBehavior');
    if (behavior !== undefined) options.spotOptions.instanceInterruptionBehavior = behavior;
  }
  return options;
}

/** The launch settings shared by RunInstances and LaunchTemplateData. */
export function parseLaunchSettings(node: QueryNode): LaunchSettings {
  const settings: LaunchSettings = {};
  const assign = <K extends 'imageId' | 'instanceType' | 'keyName' | 'userData' | 'subnetId'>(
    key: K,
    param: string,
  ) => {
    const value = node.text(param);
    if (value !== undefined) settings[key] = value;
  };
  assign('imageId', 'ImageId');
  assign('instanceType', 'InstanceType');
  assign('keyName', 'KeyName');
  assign('userData', 'UserData');
  assign('subnetId', 'SubnetId');
  const zone = node.text('Placement.AvailabilityZone');
  if (zone !== undefined) settings.availabilityZone = zone;
  const profile = node.get('IamInstanceProfile');
  if (profile) {
    settings.iamInstanceProfile = {};
    const arn = profile.text('Arn');
    if (arn !== undefined) settings.iamInstanceProfile.arn = arn;
    const name = profile.text('Name');
    if (name !== undefined) settings.iamInstanceProfile.name = name;
  }
  const market = parseMarketOptions(node.get('InstanceMarketOptions'));
  if (market) settings.instanceMarketOptions = market;
  const specs = parseTagSpecifications(node);
  if (specs.length > 0) settings.tagSpecifications = specs;
  return settings;
}

export function parseRunInstances(node: QueryNode): RunInstancesRequest {
  const minCount = node.int('MinCount');
  const maxCount = node.int('MaxCount');
  if (minCount === undefined)
    throw new Ec2Error('MissingParameter', 'The request must contain the parameter MinCount');
  if (maxCount === undefined)
    throw new Ec2Error('MissingParameter', 'The request must contain the parameter MaxCount');
  const request: RunInstancesRequest = { ...parseLaunchSettings(node), minCount, maxCount };
  const template = node.get('LaunchTemplate');
  if (template) {
    request.launchTemplate = {};
    const id = template.text('LaunchTemplateId');
    if (id !== undefined) request.launchTemplate.launchTemplateId = id;
    const name = template.text('LaunchTemplateName');
    if (name !== undefined) request.launchTemplate.launchTemplateName = name;
    const version = template.text('Version');
    if (version !== undefined) request.launchTemplate.version = version;
  }
  const clientToken = node.text('ClientToken');
  if (clientToken) request.clientToken = clientToken;
  return request;
}

export function parseMaxResults(node: QueryNode): number | undefined {
  return node.int('MaxResults');
}
