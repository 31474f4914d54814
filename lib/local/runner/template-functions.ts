/**
 * What the local runner needs from a synthesized template, resolved against the resources the local endpoint
 * (or LocalStack) created from it: each Lambda function (which handler, timeout, environment), each SQS event
 * source mapping, and each EventBridge rule that targets a function.
 */
import { createHash } from 'node:crypto';
import { ENV, FUNCTION_KINDS, type FunctionKind } from '../../aws/environment.ts';
import type {
  CfnTemplate,
  TemplateResource,
  TemplateResources,
} from '../endpoint/template/create-resources.ts';
import {
  evaluateCondition,
  type ResolveContext,
  resolveValue,
  UnresolvableError,
} from '../endpoint/template/intrinsics.ts';

export interface LocalFunction {
  readonly logicalId: string;
  readonly kind: FunctionKind;
  readonly name: string;
  readonly arn: string;
  readonly timeoutSeconds: number;
  readonly memoryMiB: number;
  /** Resolved variables; those that could not be resolved locally are listed in `unresolved`. */
  readonly env: Record<string, string>;
  readonly unresolved: readonly string[];
}

export interface LocalEventSourceMapping {
  readonly logicalId: string;
  readonly functionName: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly maximumBatchingWindowSeconds: number;
  readonly reportBatchItemFailures: boolean;
  readonly enabled: boolean;
}

export interface LocalRuleTarget {
  readonly ruleLogicalId: string;
  readonly ruleName: string;
  readonly scheduleExpression?: string;
  readonly functionArn: string;
  readonly maximumRetryAttempts?: number;
  readonly deadLetterArn?: string;
}

export interface TemplateFunctions {
  readonly functions: LocalFunction[];
  readonly eventSourceMappings: LocalEventSourceMapping[];
  readonly ruleTargets: LocalRuleTarget[];
}

export interface ResolveOptions {
  readonly region: string;
  readonly accountId: string;
}

type Resource = { Type: string; Properties?: Record<string, unknown>; Condition?: string };

/**
 * Stand-in identities for resource types nothing emulates locally (subnets, security groups, buckets, roles), so
 * values that merely mention them (a fleet configuration listing subnet ids) still resolve.
 */
const standIn = (stackName: string, logicalId: string, type: string): string | undefined => {
  const hash = createHash('sha256').update(`${stackName}/${logicalId}`).digest('hex');
  switch (type) {
    case 'AWS::EC2::Subnet':
      return `subnet-${hash.slice(0, 17)}`;
    case 'AWS::EC2::SecurityGroup':
      return `sg-${hash.slice(0, 17)}`;
    case 'AWS::EC2::VPC':
      return `vpc-${hash.slice(0, 17)}`;
    case 'AWS::S3::Bucket':
      return `${stackName}-${logicalId}`
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .slice(0, 63);
    case 'AWS::IAM::Role':
    case 'AWS::IAM::InstanceProfile':
      return `${stackName}-${logicalId}`.slice(0, 64);
    default:
      return undefined;
  }
};

const refOf = (created: TemplateResource): string | undefined => {
  if (created.type === 'AWS::SQS::Queue') return created.url;
  if (created.type === 'AWS::EC2::LaunchTemplate') return created.id;
  return created.name;
};

const attributeOf = (created: TemplateResource, attribute: string): string | undefined => {
  switch (attribute) {
    case 'Arn':
      return created.arn;
    case 'QueueUrl':
      return created.url;
    case 'QueueName':
      return created.name;
    case 'LaunchTemplateId':
      return created.id;
    case 'LatestVersionNumber':
    case 'DefaultVersionNumber':
      return '1';
    case 'StreamArn':
      return created.streamArn;
    default:
      return undefined;
  }
};

export const resolveTemplateFunctions = (
  template: CfnTemplate,
  created: TemplateResources,
  options: ResolveOptions,
): TemplateFunctions => {
  const resources = (template.Resources ?? {}) as Record<string, Resource>;
  const stackName = created.stackName;
  const lambdas = new Map(created.skipped.filter((s) => s.name && s.arn).map((s) => [s.logicalId, s]));
  const ctx: ResolveContext = {
    region: options.region,
    accountId: options.accountId,
    stackName,
    ref: (id) => {
      const made = created.resources[id];
      if (made) return refOf(made);
      const fn = lambdas.get(id);
      if (fn) return fn.name;
      const resource = resources[id];
      return resource ? standIn(stackName, id, resource.Type) : undefined;
    },
    getAtt: (id, attribute) => {
      const made = created.resources[id];
      if (made) return attributeOf(made, attribute);
      const fn = lambdas.get(id);
      if (fn && attribute === 'Arn') return fn.arn;
      const resource = resources[id];
      const name = resource ? standIn(stackName, id, resource.Type) : undefined;
      if (name && attribute === 'Arn') {
        const service = resource!.Type.startsWith('AWS::IAM')
          ? 'iam'
          : resource!.Type.split('::')[1]!.toLowerCase();
        return service === 's3' ? `arn:aws:s3:::${name}` : `arn:aws:${service}::${options.accountId}:${name}`;
      }
      return name;
    },
    parameter: (name) => {
      const declared = template.Parameters?.[name];
      if (!declared || declared.Type?.startsWith('AWS::SSM::Parameter::Value<')) return undefined;
      return declared.Default === undefined ? undefined : String(declared.Default);
    },
    condition: (name) => {
      const expression = (template as { Conditions?: Record<string, unknown> }).Conditions?.[name];
      if (expression === undefined) throw new Error(`template: condition ${name} is not defined`);
      return evaluateCondition(expression, ctx);
    },
  };
  const resolve = (value: unknown): unknown => resolveValue(value, ctx);
  const live = Object.entries(resources).filter(([, r]) => !r.Condition || ctx.condition(r.Condition));

  const functions: LocalFunction[] = [];
  for (const [logicalId, resource] of live) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const fn = lambdas.get(logicalId);
    const variables =
      (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
      {};
    const env: Record<string, string> = {};
    const unresolved: string[] = [];
    for (const [name, value] of Object.entries(variables)) {
      try {
        env[name] = String(resolve(value));
      } catch (error) {
        if (!(error instanceof UnresolvableError)) throw error;
        unresolved.push(name);
      }
    }
    const kind = env[ENV.functionKind];
    if (!fn || !kind || !(FUNCTION_KINDS as readonly string[]).includes(kind)) continue; // not a Tessera handler
    functions.push({
      logicalId,
      kind: kind as FunctionKind,
      name: fn.name!,
      arn: fn.arn!,
      timeoutSeconds: Number(resource.Properties?.Timeout ?? 3),
      memoryMiB: Number(resource.Properties?.MemorySize ?? 128),
      env,
      unresolved,
    });
  }

  const eventSourceMappings: LocalEventSourceMapping[] = [];
  for (const [logicalId, resource] of live) {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const p = resource.Properties ?? {};
    const queueArn = String(resolve(p.EventSourceArn));
    if (!queueArn.startsWith('arn:aws:sqs:')) continue;
    eventSourceMappings.push({
      logicalId,
      functionName: String(resolve(p.FunctionName)),
      queueArn,
      batchSize: Number(p.BatchSize ?? 10),
      maximumBatchingWindowSeconds: Number(p.MaximumBatchingWindowInSeconds ?? 0),
      reportBatchItemFailures:
        Array.isArray(p.FunctionResponseTypes) && p.FunctionResponseTypes.includes('ReportBatchItemFailures'),
      enabled: p.Enabled !== false,
    });
  }

  const ruleTargets: LocalRuleTarget[] = [];
  for (const [logicalId, resource] of live) {
    if (resource.Type !== 'AWS::Events::Rule') continue;
    const ruleName = created.resources[logicalId]?.name ?? String(resource.Properties?.Name ?? logicalId);
    const targets = (resource.Properties?.Targets ?? []) as Record<string, unknown>[];
    for (const target of targets) {
      let arn: string;
      try {
        arn = String(resolve(target.Arn));
      } catch {
        continue;
      }
      if (!arn.includes(':function:')) continue;
      const retry = target.RetryPolicy as { MaximumRetryAttempts?: number } | undefined;
      const dlq = target.DeadLetterConfig as { Arn?: unknown } | undefined;
      ruleTargets.push({
        ruleLogicalId: logicalId,
        ruleName,
        ...(resource.Properties?.ScheduleExpression
          ? { scheduleExpression: String(resource.Properties.ScheduleExpression) }
          : {}),
        functionArn: arn,
        ...(retry?.MaximumRetryAttempts !== undefined
          ? { maximumRetryAttempts: retry.MaximumRetryAttempts }
          : {}),
        ...(dlq?.Arn ? { deadLetterArn: String(resolve(dlq.Arn)) } : {}),
      });
    }
  }
  return { functions, eventSourceMappings, ruleTargets };
};
