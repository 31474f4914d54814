import { createHash } from 'node:crypto';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateLaunchTemplateCommand,
  type CreateLaunchTemplateCommandInput,
  DescribeLaunchTemplatesCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { RuleTarget } from '../events/types.ts';
import { createBucket } from './create-bucket.ts';
import { evaluateCondition, type ResolveContext, referencedLogicalIds } from './intrinsics.ts';
import { generatedName, NAME_RULES } from './names.ts';
import { PropertyReader } from './properties.ts';

/**
 * Create, through ordinary AWS API calls, the stateful resources a synthesized
 * CloudFormation template declares — DynamoDB tables (GSIs, TTL, streams), SQS queues (FIFO,
 * redrive to DLQs), EventBridge rules with targets, EC2 launch templates and S3 buckets — so the local
 * cluster runs on the same definitions as the cloud stack. Idempotent: existing resources are
 * kept (queues get their attributes re-applied). Works against this endpoint or LocalStack.
 */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  Condition?: string;
}

export interface CfnTemplate {
  Parameters?: Record<string, { Type?: string; Default?: unknown }>;
  Conditions?: Record<string, unknown>;
  Resources?: Record<string, CfnResource>;
}

type MaybePromise<T> = T | Promise<T>;

/** The EventBridge calls needed; both `EventBridgeJsonClient` and the endpoint's `events` bus fit. */
export interface EventsRuleApi {
  putRule(input: {
    Name: string;
    EventBusName?: string;
    ScheduleExpression?: string;
    EventPattern?: string;
    State?: string;
    Description?: string;
    RoleArn?: string;
  }): MaybePromise<{ RuleArn?: string }>;
  putTargets(input: { Rule: string; EventBusName?: string; Targets: RuleTarget[] }): MaybePromise<{
    FailedEntryCount?: number;
    FailedEntries?: { TargetId?: string; ErrorMessage?: string }[];
  }>;
}

export interface TemplateClients {
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
  events?: EventsRuleApi;
  ec2?: EC2Client;
  /** Path-style (`forcePathStyle`) client; buckets are skipped without one. */
  s3?: S3Client;
}

export interface CreateFromTemplateOptions {
  /** Used for generated names (`<stack>-<logicalId>`) and AWS::StackName; default "tessera". */
  stackName?: string;
  region?: string;
  accountId?: string;
  /** Values for template parameters (override defaults). */
  parameters?: Record<string, string>;
  /** Receives each note (ignored properties, reused resources) as it happens. */
  log?: (line: string) => void;
}

export interface TemplateResource {
  logicalId: string;
  type: string;
  name: string;
  arn?: string;
  url?: string;
  /** For launch templates: the lt-… id. */
  id?: string;
  /** For tables with a stream: its ARN (Fn::GetAtt Table.StreamArn). */
  streamArn?: string;
  /** True when the resource already existed and was reused. */
  existed: boolean;
}

export interface SkippedResource {
  logicalId: string;
  type: string;
  reason: string;
  /** Names/ARNs the resource would have (Lambda functions), so local runners can map targets. */
  name?: string;
  arn?: string;
}

export interface TemplateResources {
  stackName: string;
  resources: Record<string, TemplateResource>;
  skipped: SkippedResource[];
  notes: string[];
}

const CREATED_TYPES = new Set([
  'AWS::DynamoDB::Table',
  'AWS::DynamoDB::GlobalTable',
  'AWS::SQS::Queue',
  'AWS::Events::Rule',
  'AWS::EC2::LaunchTemplate',
  'AWS::S3::Bucket',
]);

interface Identity {
  ref?: string;
  attributes: Record<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validateTemplate(template: unknown): Record<string, CfnResource> {
  if (!isRecord(template))
    throw new Error('template: expected a JSON object (a synthesized CloudFormation template)');
  const resources = template.Resources;
  if (!isRecord(resources)) throw new Error('template.Resources: expected an object of logicalId → resource');
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (!isRecord(resource) || typeof resource.Type !== 'string') {
      throw new Error(`template.Resources.${logicalId}: expected an object with a string Type`);
    }
    if (resource.Properties !== undefined && !isRecord(resource.Properties)) {
      throw new Error(`template.Resources.${logicalId}.Properties: expected an object`);
    }
  }
  return resources as Record<string, CfnResource>;
}

/** Creation order: every resource after the created resources it references or depends on. */
function creationOrder(resources: Record<string, CfnResource>, created: readonly string[]): string[] {
  const wanted = new Set(created);
  const deps = new Map<string, string[]>();
  for (const id of created) {
    const resource = resources[id]!;
    const refs = referencedLogicalIds(resource.Properties ?? {});
    for (const d of [resource.DependsOn ?? []].flat()) refs.add(d);
    deps.set(
      id,
      [...refs].filter((r) => wanted.has(r) && r !== id),
    );
  }
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting')
      throw new Error(`template: circular references between ${[...path, id].join(' → ')}`);
    state.set(id, 'visiting');
    for (const dep of deps.get(id) ?? []) visit(dep, [...path, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of [...created].sort()) visit(id, []);
  return order;
}

function fakeAmiId(seed: string): string {
  return `ami-${createHash('sha256').update(seed).digest('hex').slice(0, 17)}`;
}

export async function createResourcesFromTemplate(
  template: CfnTemplate | unknown,
  clients: TemplateClients,
  options: CreateFromTemplateOptions = {},
): Promise<TemplateResources> {
  const resources = validateTemplate(template);
  const cfn = template as CfnTemplate;
  const stackName = options.stackName ?? 'tessera';
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '000000000000';
  const notes: string[] = [];
  const result: TemplateResources = { stackName, resources: {}, skipped: [], notes };
  const identities = new Map<string, Identity>();

  const conditionCache = new Map<string, boolean>();
  const ctx: ResolveContext = {
    region,
    accountId,
    stackName,
    ref: (id) => identities.get(id)?.ref,
    getAtt: (id, attribute) => identities.get(id)?.attributes[attribute],
    parameter: (name) => {
      const declared = cfn.Parameters?.[name];
      if (!declared) return undefined;
      const given = options.parameters?.[name];
      if (given !== undefined) return given;
      // SSM-backed AMI parameters (CDK machine images) get a stable stand-in AMI id locally.
      if (declared.Type === 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>')
        return fakeAmiId(String(declared.Default ?? name));
      if (declared.Type?.startsWith('AWS::SSM::Parameter::Value<')) return undefined;
      if (declared.Default === undefined) return undefined;
      return declared.Type === 'CommaDelimitedList'
        ? String(declared.Default).split(',')
        : String(declared.Default);
    },
    condition: (name) => {
      const cached = conditionCache.get(name);
      if (cached !== undefined) return cached;
      const expression = cfn.Conditions?.[name];
      if (expression === undefined) throw new Error(`template: condition ${name} is not defined`);
      const value = evaluateCondition(expression, ctx);
      conditionCache.set(name, value);
      return value;
    },
  };

  // Decide what to create, what to skip; give Lambda functions their (never created) identity.
  const toCreate: string[] = [];
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Condition && !ctx.condition(resource.Condition)) {
      result.skipped.push({
        logicalId,
        type: resource.Type,
        reason: `condition ${resource.Condition} is false`,
      });
      continue;
    }
    if (resource.Type === 'AWS::Lambda::Function') {
      const reader = new PropertyReader(logicalId, resource.Type, resource.Properties ?? {}, ctx, []);
      const name =
        reader.optionalString('FunctionName') ?? generatedName(stackName, logicalId, NAME_RULES.function);
      const arn = `arn:aws:lambda:${region}:${accountId}:function:${name}`;
      identities.set(logicalId, { ref: name, attributes: { Arn: arn } });
      result.skipped.push({
        logicalId,
        type: resource.Type,
        reason: 'Lambda functions are run in-process by the local runner',
        name,
        arn,
      });
    } else if (resource.Type === 'AWS::EC2::LaunchTemplate' && !clients.ec2) {
      result.skipped.push({ logicalId, type: resource.Type, reason: 'no EC2 client given' });
    } else if (resource.Type === 'AWS::S3::Bucket' && !clients.s3) {
      result.skipped.push({ logicalId, type: resource.Type, reason: 'no S3 client given' });
    } else if (resource.Type === 'AWS::Events::Rule' && !clients.events) {
      result.skipped.push({ logicalId, type: resource.Type, reason: 'no EventBridge client given' });
    } else if (CREATED_TYPES.has(resource.Type)) {
      toCreate.push(logicalId);
    } else {
      result.skipped.push({ logicalId, type: resource.Type, reason: 'resource type not emulated locally' });
    }
  }

  for (const logicalId of creationOrder(resources, toCreate)) {
    const resource = resources[logicalId]!;
    const reader = new PropertyReader(logicalId, resource.Type, resource.Properties ?? {}, ctx, notes);
    const before = notes.length;
    let created: TemplateResource;
    try {
      switch (resource.Type) {
        case 'AWS::DynamoDB::Table':
        case 'AWS::DynamoDB::GlobalTable':
          created = await createTable(reader, clients.dynamodb, stackName);
          break;
        case 'AWS::SQS::Queue':
          created = await createQueue(reader, clients.sqs, stackName);
          break;
        case 'AWS::Events::Rule':
          created = await createRule(reader, clients.events!, stackName);
          break;
        case 'AWS::S3::Bucket':
          created = await createBucket(reader, clients.s3!, stackName);
          break;
        default:
          created = await createLaunchTemplate(reader, clients.ec2!, stackName);
      }
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new Error(`template resource ${logicalId} (${resource.Type}): ${message}`, { cause: error });
    }
    reader.finish();
    for (const text of notes.slice(before)) options.log?.(text);
    result.resources[logicalId] = created;
    identities.set(logicalId, identityOf(created, resource.Type));
  }
  return result;
}

function identityOf(created: TemplateResource, type: string): Identity {
  switch (type) {
    case 'AWS::SQS::Queue':
      return {
        ref: created.url,
        attributes: { Arn: created.arn!, QueueName: created.name, QueueUrl: created.url! },
      };
    case 'AWS::EC2::LaunchTemplate':
      return {
        ref: created.id,
        attributes: { LaunchTemplateId: created.id!, LatestVersionNumber: '1', DefaultVersionNumber: '1' },
      };
    default: {
      const attributes: Record<string, string> = {};
      if (created.arn) attributes.Arn = created.arn;
      if (created.streamArn) attributes.StreamArn = created.streamArn;
      return { ref: created.name, attributes };
    }
  }
}

// ---- DynamoDB -----------------------------------------------------------------------------

const GSI_KEYS_APPLIED = new Set(['IndexName', 'KeySchema', 'Projection', 'ProvisionedThroughput']);

function cleanIndexes(
  reader: PropertyReader,
  property: string,
  keep: boolean,
): Record<string, unknown>[] | undefined {
  const indexes = reader.optional(property);
  if (indexes === undefined) return undefined;
  if (!Array.isArray(indexes)) throw new Error(`${reader.logicalId} property ${property} must be a list`);
  return indexes.map((index: Record<string, unknown>) => {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(index)) {
      if (GSI_KEYS_APPLIED.has(key) && (keep || key !== 'ProvisionedThroughput')) kept[key] = value;
      else
        reader.note(
          `${reader.logicalId} ${property}[${String(index.IndexName)}].${key} ignored: not applied locally`,
        );
    }
    return kept;
  });
}

async function createTable(
  reader: PropertyReader,
  client: DynamoDBClient,
  stackName: string,
): Promise<TemplateResource> {
  const global = reader.type === 'AWS::DynamoDB::GlobalTable';
  const name =
    reader.optionalString('TableName') ?? generatedName(stackName, reader.logicalId, NAME_RULES.table);
  const billingMode = (reader.optionalString('BillingMode') ?? 'PROVISIONED') as
    | 'PROVISIONED'
    | 'PAY_PER_REQUEST';
  const input: CreateTableCommandInput = {
    TableName: name,
    KeySchema: reader.required('KeySchema') as CreateTableCommandInput['KeySchema'],
    AttributeDefinitions: reader.required(
      'AttributeDefinitions',
    ) as CreateTableCommandInput['AttributeDefinitions'],
    BillingMode: billingMode,
  };
  const provisioned = billingMode === 'PROVISIONED';
  if (provisioned) {
    if (global) {
      // Global tables size capacity per replica with auto scaling; a fixed local value will do.
      input.ProvisionedThroughput = { ReadCapacityUnits: 5, WriteCapacityUnits: 5 };
      reader.ignore('WriteProvisionedThroughputSettings', 'local tables get a fixed 5/5 capacity');
    } else {
      input.ProvisionedThroughput = reader.required(
        'ProvisionedThroughput',
      ) as CreateTableCommandInput['ProvisionedThroughput'];
    }
  } else {
    reader.ignore('ProvisionedThroughput', 'BillingMode is PAY_PER_REQUEST');
  }
  const gsis = cleanIndexes(reader, 'GlobalSecondaryIndexes', provisioned && !global);
  if (gsis) {
    input.GlobalSecondaryIndexes = gsis.map((gsi) =>
      provisioned && !gsi.ProvisionedThroughput
        ? { ...gsi, ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }
        : gsi,
    ) as unknown as CreateTableCommandInput['GlobalSecondaryIndexes'];
  }
  const lsis = cleanIndexes(reader, 'LocalSecondaryIndexes', false);
  if (lsis) input.LocalSecondaryIndexes = lsis as unknown as CreateTableCommandInput['LocalSecondaryIndexes'];
  const stream = reader.optional('StreamSpecification') as { StreamViewType?: string } | undefined;
  if (stream?.StreamViewType) {
    input.StreamSpecification = {
      StreamEnabled: true,
      StreamViewType: stream.StreamViewType as 'NEW_AND_OLD_IMAGES',
    };
  }
  reader.ignore('PointInTimeRecoverySpecification', 'DynamoDB Local keeps no backups');
  reader.ignore('SSESpecification', 'DynamoDB Local does not encrypt at rest');
  reader.ignore('Replicas', 'one local region');
  reader.ignore('Tags', 'tags are not applied locally');
  reader.ignore('DeletionProtectionEnabled', 'local tables are disposable');
  reader.ignore('ContributorInsightsSpecification', 'no CloudWatch locally');
  reader.ignore('TableClass', 'no storage classes locally');
  const ttl = reader.optional('TimeToLiveSpecification') as
    | { AttributeName?: string; Enabled?: boolean }
    | undefined;

  let existed = false;
  let description: { TableArn?: string; LatestStreamArn?: string } | undefined;
  try {
    description = (await client.send(new CreateTableCommand(input))).TableDescription;
  } catch (error) {
    if ((error as Error).name !== 'ResourceInUseException') throw error;
    existed = true;
    reader.note(`${reader.logicalId}: table ${name} already exists; kept as is`);
    description = (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
  }
  if (ttl?.Enabled && ttl.AttributeName) {
    const current = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
    const status = current.TimeToLiveDescription?.TimeToLiveStatus;
    if (status !== 'ENABLED' && status !== 'ENABLING') {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
        }),
      );
    }
  }
  const created: TemplateResource = { logicalId: reader.logicalId, type: reader.type, name, existed };
  if (description?.TableArn) created.arn = description.TableArn;
  if (description?.LatestStreamArn) created.streamArn = description.LatestStreamArn;
  return created;
}

// ---- SQS ----------------------------------------------------------------------------------

/** CloudFormation properties that are SQS queue attributes of the same name. */
const QUEUE_ATTRIBUTES = [
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'VisibilityTimeout',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
];

async function createQueue(
  reader: PropertyReader,
  client: SQSClient,
  stackName: string,
): Promise<TemplateResource> {
  const attributes: Record<string, string> = {};
  for (const key of QUEUE_ATTRIBUTES) {
    const value = reader.optional(key);
    if (value !== undefined) attributes[key] = String(value);
  }
  for (const key of ['RedrivePolicy', 'RedriveAllowPolicy']) {
    const value = reader.optional(key);
    if (value !== undefined) attributes[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  const fifo = attributes.FifoQueue === 'true';
  const name =
    reader.optionalString('QueueName') ??
    generatedName(stackName, reader.logicalId, fifo ? NAME_RULES.fifoQueue : NAME_RULES.queue);
  const tagList = reader.optional('Tags');
  const tags = Array.isArray(tagList)
    ? Object.fromEntries(tagList.map((t: { Key: string; Value: string }) => [t.Key, String(t.Value)]))
    : undefined;

  let url: string | undefined;
  let existed = false;
  try {
    url = (
      await client.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributes, ...(tags ? { tags } : {}) }),
      )
    ).QueueUrl;
  } catch (error) {
    if ((error as Error).name !== 'QueueNameExists' && (error as Error).name !== 'QueueAlreadyExists')
      throw error;
    // Same name, different attributes: converge the existing queue to the template.
    existed = true;
    url = (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
    const { FifoQueue: _fixedAtCreation, ...settable } = attributes;
    await client.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: settable }));
    reader.note(`${reader.logicalId}: queue ${name} already existed; attributes re-applied`);
  }
  if (!url) throw new Error(`CreateQueue returned no QueueUrl for ${name}`);
  const arn = (
    await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn;
  if (!arn) throw new Error(`GetQueueAttributes returned no QueueArn for ${name}`);
  return { logicalId: reader.logicalId, type: reader.type, name, arn, url, existed };
}

// ---- EventBridge --------------------------------------------------------------------------

const TARGET_FIELDS = [
  'Id',
  'Arn',
  'RoleArn',
  'Input',
  'InputPath',
  'InputTransformer',
  'SqsParameters',
  'RetryPolicy',
  'DeadLetterConfig',
] as const;

async function createRule(
  reader: PropertyReader,
  events: EventsRuleApi,
  stackName: string,
): Promise<TemplateResource> {
  const name = reader.optionalString('Name') ?? generatedName(stackName, reader.logicalId, NAME_RULES.rule);
  const pattern = reader.optional('EventPattern');
  const input: Parameters<EventsRuleApi['putRule']>[0] = { Name: name };
  if (pattern !== undefined)
    input.EventPattern = typeof pattern === 'string' ? pattern : JSON.stringify(pattern);
  const schedule = reader.optionalString('ScheduleExpression');
  if (schedule !== undefined) input.ScheduleExpression = schedule;
  const state = reader.optionalString('State');
  if (state !== undefined) input.State = state;
  const description = reader.optionalString('Description');
  if (description !== undefined) input.Description = description;
  const bus = reader.optionalString('EventBusName');
  if (bus !== undefined) input.EventBusName = bus;
  const role = reader.optionalString('RoleArn');
  if (role !== undefined) input.RoleArn = role;
  const { RuleArn } = await events.putRule(input);

  const rawTargets = reader.raw('Targets');
  const targets: RuleTarget[] = [];
  for (const [i, raw] of (Array.isArray(rawTargets) ? rawTargets : []).entries()) {
    const resolved = reader.resolveOrNote(raw, `Targets[${i}]`);
    if (!isRecord(resolved)) continue;
    const target: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(resolved)) {
      if ((TARGET_FIELDS as readonly string[]).includes(key)) target[key] = value;
      else
        reader.note(`${reader.logicalId} Targets[${i}].${key} ignored: not supported by the local endpoint`);
    }
    targets.push(target as unknown as RuleTarget);
  }
  if (targets.length > 0) {
    const outcome = await events.putTargets({
      Rule: name,
      ...(bus ? { EventBusName: bus } : {}),
      Targets: targets,
    });
    if (outcome.FailedEntryCount) {
      throw new Error(`PutTargets failed for ${JSON.stringify(outcome.FailedEntries)}`);
    }
  }
  const created: TemplateResource = { logicalId: reader.logicalId, type: reader.type, name, existed: false };
  if (RuleArn) created.arn = RuleArn;
  return created;
}

// ---- EC2 launch templates -----------------------------------------------------------------

async function createLaunchTemplate(
  reader: PropertyReader,
  client: EC2Client,
  stackName: string,
): Promise<TemplateResource> {
  const name =
    reader.optionalString('LaunchTemplateName') ??
    generatedName(stackName, reader.logicalId, NAME_RULES.launchTemplate);
  // Resolve the data field by field so one unresolvable field (user data pointing at an S3
  // asset, say) does not lose the whole template.
  const rawData = reader.raw('LaunchTemplateData');
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(isRecord(rawData) ? rawData : {})) {
    const resolved = reader.resolveOrNote(value, `LaunchTemplateData.${key}`);
    if (resolved !== undefined) data[key] = resolved;
  }
  const tagSpecifications = reader.optional('TagSpecifications');
  const input: CreateLaunchTemplateCommandInput = {
    LaunchTemplateName: name,
    LaunchTemplateData: data as CreateLaunchTemplateCommandInput['LaunchTemplateData'],
  };
  if (Array.isArray(tagSpecifications)) {
    input.TagSpecifications = tagSpecifications as CreateLaunchTemplateCommandInput['TagSpecifications'];
  }
  try {
    const { LaunchTemplate } = await client.send(new CreateLaunchTemplateCommand(input));
    return {
      logicalId: reader.logicalId,
      type: reader.type,
      name,
      id: LaunchTemplate?.LaunchTemplateId ?? '',
      existed: false,
    };
  } catch (error) {
    if ((error as Error).name !== 'InvalidLaunchTemplateName.AlreadyExistsException') throw error;
    const { LaunchTemplates } = await client.send(
      new DescribeLaunchTemplatesCommand({ LaunchTemplateNames: [name] }),
    );
    reader.note(`${reader.logicalId}: launch template ${name} already exists; kept as is`);
    return {
      logicalId: reader.logicalId,
      type: reader.type,
      name,
      id: LaunchTemplates?.[0]?.LaunchTemplateId ?? '',
      existed: true,
    };
  }
}
