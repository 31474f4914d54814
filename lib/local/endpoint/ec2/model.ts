import { Ec2Error } from './errors.ts';
import {
  instanceFieldValues,
  launchTemplateFieldValues,
  matchesFilters,
  topologyFieldValues,
} from './filters.ts';
import { networkNodesFor } from './topology.ts';
import type {
  Ec2Notification,
  Filter,
  Instance,
  InstanceStateChange,
  InstanceStateName,
  InstanceTopology,
  LaunchSettings,
  LaunchTemplate,
  Reservation,
  RunInstancesRequest,
  Tag,
  TagSpecification,
  TopologyLayout,
} from './types.ts';

/**
 * The EC2 shim's state machine. Pure with respect to time: every operation takes `now`
 * (epoch ms) and returns the notifications it caused; the service owns timers and the clock.
 * Ids come from counters, so a run is reproducible.
 */
export interface Ec2ModelConfig {
  region: string;
  accountId: string;
  /** How long a launched instance stays `pending` before `running`. */
  pendingMs: number;
  /** How long a terminated instance stays `shutting-down` before `terminated`. */
  shuttingDownMs: number;
  /** How long `terminated` instances stay visible to Describe calls (EC2 keeps them about an hour). */
  terminatedRetentionMs: number;
  topology: TopologyLayout;
  /** Optional cap of concurrently live instances per instance type, to exercise InsufficientInstanceCapacity. */
  capacity?: Readonly<Record<string, number>>;
  /**
   * First two octets of private IPs (default `10.0`). The local cloud uses `127.0`: on Linux all of 127/8 is
   * loopback, so simulated hosts' workers can listen on and reach each other's "private" addresses.
   */
  privateIpPrefix?: string;
}

export interface Ec2Snapshot {
  counters: Counters;
  instances: Instance[];
  reservations: Reservation[];
  launchTemplates: LaunchTemplate[];
}

interface Counters {
  instance: number;
  reservation: number;
  launchTemplate: number;
  spotRequest: number;
  ordinal: number;
}

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

export interface ReservationView {
  reservation: Reservation;
  instances: Instance[];
}

const INSTANCE_ID = /^i-[0-9a-f]{8}(?:[0-9a-f]{9})?$/;
const LAUNCH_TEMPLATE_ID = /^lt-[0-9a-f]{17}$/;
const LAUNCH_TEMPLATE_NAME = /^[a-zA-Z0-9().\-/_]{3,128}$/;
const TAGGABLE_TYPES = new Set([
  'instance',
  'volume',
  'network-interface',
  'spot-instances-request',
  'launch-template',
]);
const MAX_TAGS = 50;

function hexId(prefix: string, n: number): string {
  return `${prefix}-${n.toString(16).padStart(17, '0')}`;
}

/** Stable JSON (sorted keys) so two equal requests fingerprint the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function validateTags(tags: readonly Tag[]): void {
  for (const tag of tags) {
    if (tag.key.length < 1 || tag.key.length > 128) {
      throw new Ec2Error('InvalidParameterValue', `Tag key '${tag.key}' must be 1 to 128 characters long`);
    }
    if (tag.value.length > 256) {
      throw new Ec2Error('InvalidParameterValue', `Tag value for key '${tag.key}' exceeds 256 characters`);
    }
    if (tag.key.toLowerCase().startsWith('aws:')) {
      throw new Ec2Error(
        'InvalidParameterValue',
        `Tag keys starting with 'aws:' are reserved for internal use`,
      );
    }
  }
}

/** Later tags win over earlier ones with the same key, keeping first-seen order. */
function mergeTags(...lists: readonly (readonly Tag[])[]): Tag[] {
  const byKey = new Map<string, string>();
  for (const list of lists) for (const tag of list) byKey.set(tag.key, tag.value);
  return [...byKey].map(([key, value]) => ({ key, value }));
}

function tagsFor(resourceType: string, specs: readonly TagSpecification[] | undefined): Tag[] {
  return mergeTags(...(specs ?? []).filter((s) => s.resourceType === resourceType).map((s) => s.tags));
}

function validateTagSpecifications(specs: readonly TagSpecification[] | undefined): void {
  for (const spec of specs ?? []) {
    if (!TAGGABLE_TYPES.has(spec.resourceType)) {
      throw new Ec2Error(
        'InvalidParameterValue',
        `'${spec.resourceType}' is not a valid taggable resource type`,
      );
    }
    validateTags(spec.tags);
  }
}

export function zoneIdFor(availabilityZone: string, region: string): string {
  const abbreviation = region
    .split('-')
    .map((part, i) => (i === 0 ? part : /^\d+$/.test(part) ? part : part[0]))
    .join('');
  const letter = availabilityZone.slice(region.length) || 'a';
  return `${abbreviation}-az${letter.charCodeAt(0) - 96}`;
}

export class Ec2Model {
  private counters: Counters = { instance: 0, reservation: 0, launchTemplate: 0, spotRequest: 0, ordinal: 0 };
  private readonly instances = new Map<string, Instance>();
  private readonly reservations = new Map<string, Reservation>();
  private readonly launchTemplates = new Map<string, LaunchTemplate>();

  constructor(readonly config: Ec2ModelConfig) {}

  // ---- launch templates -------------------------------------------------------------

  createLaunchTemplate(
    input: { launchTemplateName?: string; data?: LaunchSettings; tagSpecifications?: TagSpecification[] },
    now: number,
  ): LaunchTemplate {
    const name = input.launchTemplateName;
    if (!name)
      throw new Ec2Error('MissingParameter', 'The request must contain the parameter LaunchTemplateName');
    if (!LAUNCH_TEMPLATE_NAME.test(name)) {
      throw new Ec2Error(
        'InvalidLaunchTemplateName.MalformedException',
        `Launch template name '${name}' must be 3-128 characters of letters, digits and ( ) . - / _`,
      );
    }
    if (!input.data)
      throw new Ec2Error('MissingParameter', 'The request must contain the parameter LaunchTemplateData');
    if ([...this.launchTemplates.values()].some((t) => t.launchTemplateName === name)) {
      throw new Ec2Error(
        'InvalidLaunchTemplateName.AlreadyExistsException',
        `Launch template name already in use: ${name}`,
      );
    }
    validateTagSpecifications(input.tagSpecifications);
    validateTagSpecifications(input.data.tagSpecifications);
    const template: LaunchTemplate = {
      launchTemplateId: hexId('lt', ++this.counters.launchTemplate),
      launchTemplateName: name,
      createTime: now,
      tags: tagsFor('launch-template', input.tagSpecifications),
      data: structuredClone(input.data),
    };
    this.launchTemplates.set(template.launchTemplateId, template);
    return structuredClone(template);
  }

  describeLaunchTemplates(input: { ids?: string[]; names?: string[]; filters?: Filter[] }): LaunchTemplate[] {
    const ids = input.ids ?? [];
    const names = input.names ?? [];
    const missingId = ids.find((id) => !this.launchTemplates.has(id));
    if (missingId) {
      throw new Ec2Error(
        'InvalidLaunchTemplateId.NotFound',
        `The specified launch template, with template ID ${missingId}, does not exist.`,
      );
    }
    const all = [...this.launchTemplates.values()];
    const missingName = names.find((name) => !all.some((t) => t.launchTemplateName === name));
    if (missingName) {
      throw new Ec2Error(
        'InvalidLaunchTemplateName.NotFoundException',
        `At least one of the launch templates specified in the request does not exist.`,
      );
    }
    return all
      .filter((t) => ids.length === 0 || ids.includes(t.launchTemplateId))
      .filter((t) => names.length === 0 || names.includes(t.launchTemplateName))
      .filter((t) => matchesFilters(input.filters ?? [], (name) => launchTemplateFieldValues(t, name)))
      .map((t) => structuredClone(t));
  }

  private resolveLaunchTemplate(
    request: RunInstancesRequest,
  ): { template: LaunchTemplate; version: string } | undefined {
    const ref = request.launchTemplate;
    if (!ref) return undefined;
    if (ref.launchTemplateId && ref.launchTemplateName) {
      throw new Ec2Error(
        'InvalidParameterCombination',
        'Specify either LaunchTemplateId or LaunchTemplateName for the launch template, not both',
      );
    }
    let template: LaunchTemplate | undefined;
    if (ref.launchTemplateId) {
      if (!LAUNCH_TEMPLATE_ID.test(ref.launchTemplateId)) {
        throw new Ec2Error(
          'InvalidLaunchTemplateId.Malformed',
          `Invalid launch template id: '${ref.launchTemplateId}'`,
        );
      }
      template = this.launchTemplates.get(ref.launchTemplateId);
      if (!template) {
        throw new Ec2Error(
          'InvalidLaunchTemplateId.NotFound',
          `The specified launch template, with template ID ${ref.launchTemplateId}, does not exist.`,
        );
      }
    } else if (ref.launchTemplateName) {
      template = [...this.launchTemplates.values()].find(
        (t) => t.launchTemplateName === ref.launchTemplateName,
      );
      if (!template) {
        throw new Ec2Error(
          'InvalidLaunchTemplateName.NotFoundException',
          `The specified launch template, with template name ${ref.launchTemplateName}, does not exist.`,
        );
      }
    } else {
      throw new Ec2Error(
        'MissingParameter',
        'The launch template must have a LaunchTemplateId or LaunchTemplateName',
      );
    }
    // The shim keeps a single version per template (there is no CreateLaunchTemplateVersion).
    const version = ref.version ?? '$Default';
    if (version !== '$Default' && version !== '$Latest' && version !== '1') {
      throw new Ec2Error(
        'InvalidLaunchTemplateId.VersionNotFound',
        `Could not find launch template version ${version} for template ${template.launchTemplateId}`,
      );
    }
    return { template, version: '1' };
  }

  // ---- instances ---------------------------------------------------------------------

  runInstances(
    request: RunInstancesRequest,
    now: number,
  ): { view: ReservationView; notifications: Ec2Notification[] } {
    const fingerprint = canonicalJson({ ...request, clientToken: undefined });
    if (request.clientToken) {
      const previous = [...this.reservations.values()].find((r) => r.clientToken === request.clientToken);
      if (previous) {
        if (previous.requestFingerprint !== fingerprint) {
          throw new Ec2Error(
            'IdempotentParameterMismatch',
            `The client token '${request.clientToken}' was already used with different parameters`,
          );
        }
        return { view: this.viewOf(previous), notifications: [] };
      }
    }
    if (!Number.isInteger(request.minCount) || !Number.isInteger(request.maxCount)) {
      throw new Ec2Error('MissingParameter', 'The request must contain the parameters MinCount and MaxCount');
    }
    if (request.minCount < 1 || request.maxCount < request.minCount) {
      throw new Ec2Error(
        'InvalidParameterValue',
        `MinCount (${request.minCount}) must be at least 1 and not more than MaxCount (${request.maxCount})`,
      );
    }
    validateTagSpecifications(request.tagSpecifications);
    const resolved = this.resolveLaunchTemplate(request);
    const base: LaunchSettings = resolved?.template.data ?? {};
    const pick = <K extends keyof LaunchSettings>(key: K): LaunchSettings[K] => request[key] ?? base[key];
    const imageId = pick('imageId');
    if (!imageId) throw new Ec2Error('MissingParameter', 'The request must contain the parameter ImageId');
    const instanceType = pick('instanceType') ?? 'm1.small';
    const availabilityZone = pick('availabilityZone') ?? `${this.config.region}a`;
    if (!availabilityZone.startsWith(this.config.region)) {
      throw new Ec2Error(
        'InvalidParameterValue',
        `Invalid availability zone: [${availabilityZone}] is not in region ${this.config.region}`,
      );
    }
    const market = pick('instanceMarketOptions');
    const count = this.launchableCount(instanceType, request.minCount, request.maxCount, availabilityZone);
    const templateTags: Tag[] = resolved
      ? [
          { key: 'aws:ec2launchtemplate:id', value: resolved.template.launchTemplateId },
          { key: 'aws:ec2launchtemplate:version', value: resolved.version },
        ]
      : [];
    const tags = mergeTags(
      tagsFor('instance', base.tagSpecifications),
      tagsFor('instance', request.tagSpecifications),
      templateTags,
    );
    if (tags.length > MAX_TAGS) {
      throw new Ec2Error(
        'TagLimitExceeded',
        `An instance can have at most ${MAX_TAGS} tags, got ${tags.length}`,
      );
    }

    const reservation: Reservation = {
      reservationId: hexId('r', ++this.counters.reservation),
      instanceIds: [],
      requestFingerprint: fingerprint,
      ...(request.clientToken ? { clientToken: request.clientToken } : {}),
    };
    const notifications: Ec2Notification[] = [];
    for (let launchIndex = 0; launchIndex < count; launchIndex++) {
      const ordinal = this.counters.ordinal++;
      const ip = privateIpFor(ordinal, this.config.privateIpPrefix);
      const instance: Instance = {
        instanceId: hexId('i', ++this.counters.instance),
        reservationId: reservation.reservationId,
        ordinal,
        amiLaunchIndex: launchIndex,
        imageId,
        instanceType,
        state: 'pending',
        stateTransitionReason: '',
        launchTime: now,
        tags,
        availabilityZone,
        privateIpAddress: ip,
        privateDnsName: privateDnsNameFor(ip, this.config.region),
        transitionAt: now + this.config.pendingMs,
      };
      const keyName = pick('keyName');
      if (keyName) instance.keyName = keyName;
      const subnetId = pick('subnetId');
      if (subnetId) instance.subnetId = subnetId;
      const userData = pick('userData');
      if (userData) instance.userData = userData;
      const profile = pick('iamInstanceProfile');
      if (profile) {
        instance.iamInstanceProfileArn =
          profile.arn ??
          `arn:aws:iam::${this.config.accountId}:instance-profile/${profile.name ?? 'unnamed'}`;
      }
      if (market?.marketType === 'spot') {
        instance.instanceLifecycle = 'spot';
        instance.spotInstanceRequestId = `sir-${(++this.counters.spotRequest).toString(16).padStart(8, '0')}`;
      }
      if (request.clientToken) instance.clientToken = request.clientToken;
      if (resolved) {
        instance.launchTemplate = {
          launchTemplateId: resolved.template.launchTemplateId,
          launchTemplateName: resolved.template.launchTemplateName,
          version: resolved.version,
        };
      }
      this.instances.set(instance.instanceId, instance);
      reservation.instanceIds.push(instance.instanceId);
      notifications.push({
        kind: 'state-change',
        instanceId: instance.instanceId,
        state: 'pending',
        at: now,
      });
    }
    this.reservations.set(reservation.reservationId, reservation);
    return { view: this.viewOf(reservation), notifications };
  }

  private launchableCount(instanceType: string, minCount: number, maxCount: number, zone: string): number {
    const cap = this.config.capacity?.[instanceType];
    if (cap === undefined) return maxCount;
    const live = [...this.instances.values()].filter(
      (i) => i.instanceType === instanceType && i.state !== 'terminated',
    ).length;
    const available = Math.max(0, cap - live);
    if (available < minCount) {
      throw new Ec2Error(
        'InsufficientInstanceCapacity',
        `We currently do not have sufficient ${instanceType} capacity in the Availability Zone you requested (${zone}). ` +
          `Requested ${minCount}, available ${available}.`,
      );
    }
    return Math.min(maxCount, available);
  }

  terminateInstances(
    instanceIds: readonly string[],
    now: number,
  ): { changes: InstanceStateChange[]; notifications: Ec2Notification[] } {
    if (instanceIds.length === 0) {
      throw new Ec2Error('MissingParameter', 'The request must contain the parameter InstanceId');
    }
    const instances = this.requireInstances(instanceIds);
    const notifications: Ec2Notification[] = [];
    const changes = instances.map((instance) => {
      const previousState = instance.state;
      if (previousState === 'pending' || previousState === 'running') {
        this.beginShutdown(instance, now, 'User', {
          code: 'Client.UserInitiatedShutdown',
          message: 'Client.UserInitiatedShutdown: User initiated shutdown',
        });
        notifications.push({
          kind: 'state-change',
          instanceId: instance.instanceId,
          state: 'shutting-down',
          at: now,
        });
      }
      return { instanceId: instance.instanceId, previousState, currentState: instance.state };
    });
    return { changes, notifications };
  }

  private beginShutdown(
    instance: Instance,
    now: number,
    initiator: 'User' | 'Service',
    reason: { code: string; message: string },
  ): void {
    instance.state = 'shutting-down';
    instance.stateReason = reason;
    instance.stateTransitionReason = `${initiator} initiated (${new Date(now).toISOString().replace(/\.\d+Z$/, ' GMT')})`;
    instance.transitionAt = now + this.config.shuttingDownMs;
    delete instance.interruptionAt;
  }

  /**
   * Simulate a Spot interruption: the two-minute warning now (or after `noticeMs` here),
   * then shutdown. Lets the fleet-events handler be tested without AWS.
   */
  interruptSpot(instanceId: string, now: number, noticeMs: number): Ec2Notification[] {
    const [instance] = this.requireInstances([instanceId]);
    if (!instance) return [];
    if (instance.instanceLifecycle !== 'spot') {
      throw new Ec2Error('UnsupportedOperation', `Instance ${instanceId} is not a Spot instance`);
    }
    if (instance.state !== 'running' && instance.state !== 'pending') {
      throw new Ec2Error(
        'IncorrectInstanceState',
        `Instance ${instanceId} is ${instance.state}, not running`,
      );
    }
    instance.interruptionAt = now + Math.max(0, noticeMs);
    return [{ kind: 'spot-interruption-warning', instanceId, at: now, instanceAction: 'terminate' }];
  }

  /** Apply every transition due at or before `now`, in time order; forget long-terminated instances. */
  advance(now: number): Ec2Notification[] {
    const notifications: Ec2Notification[] = [];
    for (;;) {
      const next = this.nextDue();
      if (!next || next.at > now) break;
      const { instance, at } = next;
      let state: InstanceStateName;
      if (instance.interruptionAt !== undefined && instance.interruptionAt === at) {
        this.beginShutdown(instance, at, 'Service', {
          code: 'Server.SpotInstanceTermination',
          message: 'Server.SpotInstanceTermination: Spot instance termination',
        });
        state = 'shutting-down';
      } else if (instance.state === 'pending') {
        instance.state = 'running';
        delete instance.transitionAt;
        state = 'running';
      } else {
        instance.state = 'terminated';
        instance.terminatedAt = at;
        delete instance.transitionAt;
        state = 'terminated';
      }
      notifications.push({ kind: 'state-change', instanceId: instance.instanceId, state, at });
    }
    this.forgetTerminated(now);
    return notifications;
  }

  private nextDue(): { instance: Instance; at: number } | undefined {
    let best: { instance: Instance; at: number } | undefined;
    for (const instance of this.instances.values()) {
      for (const at of [instance.transitionAt, instance.interruptionAt]) {
        if (at !== undefined && (!best || at < best.at)) best = { instance, at };
      }
    }
    return best;
  }

  /** When the next state transition is due, for the service's timer. */
  nextDueAt(): number | undefined {
    return this.nextDue()?.at;
  }

  private forgetTerminated(now: number): void {
    for (const [id, instance] of this.instances) {
      if (
        instance.terminatedAt !== undefined &&
        now - instance.terminatedAt >= this.config.terminatedRetentionMs
      ) {
        this.instances.delete(id);
        const reservation = this.reservations.get(instance.reservationId);
        if (reservation) {
          reservation.instanceIds = reservation.instanceIds.filter((x) => x !== id);
          // Keep reservations that still carry an idempotency token so a retried launch is not duplicated.
          if (reservation.instanceIds.length === 0 && !reservation.clientToken) {
            this.reservations.delete(reservation.reservationId);
          }
        }
      }
    }
  }

  private requireInstances(instanceIds: readonly string[]): Instance[] {
    const malformed = instanceIds.find((id) => !INSTANCE_ID.test(id));
    if (malformed) throw new Ec2Error('InvalidInstanceID.Malformed', `Invalid id: "${malformed}"`);
    const missing = instanceIds.filter((id) => !this.instances.has(id));
    if (missing.length === 1) {
      throw new Ec2Error('InvalidInstanceID.NotFound', `The instance ID '${missing[0]}' does not exist`);
    }
    if (missing.length > 1) {
      throw new Ec2Error(
        'InvalidInstanceID.NotFound',
        `The instance IDs '${missing.join(', ')}' do not exist`,
      );
    }
    return [...new Set(instanceIds)].map((id) => this.instances.get(id)!);
  }

  describeInstances(input: {
    instanceIds?: string[];
    filters?: Filter[];
    maxResults?: number;
    nextToken?: string;
  }): Page<ReservationView> {
    const ids = input.instanceIds ?? [];
    if (ids.length > 0 && input.maxResults !== undefined) {
      throw new Ec2Error(
        'InvalidParameterCombination',
        'The parameter instancesSet cannot be used with the parameter maxResults',
      );
    }
    if (input.maxResults !== undefined && (input.maxResults < 5 || input.maxResults > 1000)) {
      throw new Ec2Error(
        'InvalidParameterValue',
        `Value (${input.maxResults}) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`,
      );
    }
    const wanted = ids.length > 0 ? new Set(this.requireInstances(ids).map((i) => i.instanceId)) : undefined;
    const views: ReservationView[] = [];
    for (const reservation of this.reservations.values()) {
      const instances = reservation.instanceIds
        .map((id) => this.instances.get(id)!)
        .filter((i) => !wanted || wanted.has(i.instanceId))
        .filter((i) => matchesFilters(input.filters ?? [], (name) => instanceFieldValues(i, name)));
      if (instances.length > 0)
        views.push({ reservation: cloneReservation(reservation), instances: instances.map(clone) });
    }
    return paginate(views, input.maxResults, input.nextToken);
  }

  describeInstanceTopology(input: {
    instanceIds?: string[];
    filters?: Filter[];
    maxResults?: number;
    nextToken?: string;
  }): Page<InstanceTopology> {
    const ids = input.instanceIds ?? [];
    if (ids.length > 100) {
      throw new Ec2Error('InvalidParameterValue', 'You can specify at most 100 instance IDs');
    }
    const candidates = ids.length > 0 ? this.requireInstances(ids) : [...this.instances.values()];
    // Like EC2, only running instances have a topology to report.
    const topologies = candidates
      .filter((i) => i.state === 'running')
      .map((i) => this.topologyOf(i))
      .filter((t) => matchesFilters(input.filters ?? [], (name) => topologyFieldValues(t, name)));
    return paginate(topologies, input.maxResults, input.nextToken);
  }

  private topologyOf(instance: Instance): InstanceTopology {
    return {
      instanceId: instance.instanceId,
      instanceType: instance.instanceType,
      networkNodes: networkNodesFor(instance.ordinal, this.config.topology),
      availabilityZone: instance.availabilityZone,
      zoneId: zoneIdFor(instance.availabilityZone, this.config.region),
    };
  }

  createTags(resourceIds: readonly string[], tags: readonly Tag[]): void {
    if (resourceIds.length === 0)
      throw new Ec2Error('MissingParameter', 'The request must contain the parameter ResourceId');
    validateTags(tags);
    const targets: { tags: Tag[]; set(tags: Tag[]): void }[] = resourceIds.map((id) => {
      if (id.startsWith('i-')) {
        const [instance] = this.requireInstances([id]);
        return { tags: instance!.tags, set: (t: Tag[]) => (instance!.tags = t) };
      }
      if (id.startsWith('lt-')) {
        const template = this.launchTemplates.get(id);
        if (!template) {
          throw new Ec2Error(
            'InvalidLaunchTemplateId.NotFound',
            `The specified launch template, with template ID ${id}, does not exist.`,
          );
        }
        return { tags: template.tags, set: (t: Tag[]) => (template.tags = t) };
      }
      throw new Ec2Error(
        'InvalidID',
        `The ID '${id}' is not valid for the local EC2 shim (instances and launch templates only)`,
      );
    });
    for (const target of targets) {
      const merged = mergeTags(target.tags, tags);
      if (merged.length > MAX_TAGS) {
        throw new Ec2Error('TagLimitExceeded', `A resource can have at most ${MAX_TAGS} tags`);
      }
      target.set(merged);
    }
  }

  /** All instances (including recently terminated ones), for in-process inspection. */
  listInstances(): Instance[] {
    return [...this.instances.values()].map(clone);
  }

  private viewOf(reservation: Reservation): ReservationView {
    return {
      reservation: cloneReservation(reservation),
      instances: reservation.instanceIds.map((id) => clone(this.instances.get(id)!)),
    };
  }

  snapshot(): Ec2Snapshot {
    return structuredClone({
      counters: this.counters,
      instances: [...this.instances.values()],
      reservations: [...this.reservations.values()],
      launchTemplates: [...this.launchTemplates.values()],
    });
  }

  restore(snapshot: Ec2Snapshot): void {
    this.counters = { ...snapshot.counters };
    this.instances.clear();
    this.reservations.clear();
    this.launchTemplates.clear();
    for (const i of snapshot.instances) this.instances.set(i.instanceId, structuredClone(i));
    for (const r of snapshot.reservations) this.reservations.set(r.reservationId, structuredClone(r));
    for (const t of snapshot.launchTemplates)
      this.launchTemplates.set(t.launchTemplateId, structuredClone(t));
  }
}

function clone(instance: Instance): Instance {
  return structuredClone(instance);
}

function cloneReservation(reservation: Reservation): Reservation {
  return structuredClone(reservation);
}

/** 10.0.0.4 onwards: the first four addresses of a VPC subnet are reserved by AWS. */
function privateIpFor(ordinal: number, prefix = '10.0'): string {
  const n = ordinal + 4;
  return `${prefix}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

function privateDnsNameFor(ip: string, region: string): string {
  const host = `ip-${ip.replaceAll('.', '-')}`;
  return region === 'us-east-1' ? `${host}.ec2.internal` : `${host}.${region}.compute.internal`;
}

function paginate<T>(items: T[], maxResults: number | undefined, nextToken: string | undefined): Page<T> {
  let start = 0;
  if (nextToken !== undefined) {
    const decoded = Buffer.from(nextToken, 'base64url').toString('utf8');
    if (!/^offset:\d+$/.test(decoded)) {
      throw new Ec2Error('InvalidParameterValue', `Invalid NextToken '${nextToken}'`);
    }
    start = Number(decoded.slice('offset:'.length));
  }
  if (maxResults === undefined) return { items: items.slice(start) };
  const end = start + maxResults;
  const page: Page<T> = { items: items.slice(start, end) };
  if (end < items.length) page.nextToken = Buffer.from(`offset:${end}`).toString('base64url');
  return page;
}
