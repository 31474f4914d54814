/** The local AWS-compatible endpoint: public surface. */

export type { Instance as Ec2Instance } from './ec2/types.ts';
export type { DeliveryListener, EventListener, ScheduledRule } from './events/bus.ts';
export { EventBridgeApiError, EventBridgeJsonClient } from './events/client.ts';
export { compileEventPattern } from './events/pattern.ts';
export { nextFireTime, parseScheduleExpression, type Schedule } from './events/schedule.ts';
export type { EventBridgeEvent, EventDelivery, Rule, RuleTarget } from './events/types.ts';
export { type LocalEndpoint, type LocalEndpointOptions, startLocalEndpoint } from './server.ts';
export { localHostCredentials, senderIdOfAccessKey } from './sqs-sender.ts';
export {
  type CfnTemplate,
  type CreateFromTemplateOptions,
  createResourcesFromTemplate,
  type EventsRuleApi,
  type SkippedResource,
  type TemplateClients,
  type TemplateResource,
  type TemplateResources,
} from './template/create-resources.ts';
