/**
 * The REST API's routes as the stack deploys them: every `AWS::ApiGateway::Method` of the template with the path
 * of its resource (`PathPart`s up to the API's root). The local gateway serves exactly these.
 */
import type { CfnTemplate } from '../endpoint/template/create-resources.ts';

export interface ApiRoute {
  readonly method: string;
  /** e.g. `/jobs/{id}` */
  readonly path: string;
}

type Resource = { Type: string; Properties?: Record<string, unknown> };

export const apiRoutesFromTemplate = (template: CfnTemplate): ApiRoute[] => {
  const resources = (template.Resources ?? {}) as Record<string, Resource>;
  const pathOf = (ref: unknown, depth = 0): string => {
    const id = (ref as { Ref?: string } | undefined)?.Ref;
    const resource = id ? resources[id] : undefined;
    // Anything but a Ref to a Resource is the API's root (Fn::GetAtt RestApi.RootResourceId).
    if (resource?.Type !== 'AWS::ApiGateway::Resource' || depth > 32) return '';
    return `${pathOf(resource.Properties?.ParentId, depth + 1)}/${String(resource.Properties?.PathPart)}`;
  };
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties?.HttpMethod !== 'OPTIONS')
    .map((r) => ({ method: String(r.Properties?.HttpMethod), path: pathOf(r.Properties?.ResourceId) || '/' }))
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
};
