/** The four DynamoDB tables: on-demand, point-in-time recovery, encrypted, GSIs and TTL as lib/aws/tables.ts says. */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { HOSTS_TABLE, JOBS_TABLE, PROFILES_TABLE, SCHEDULER_STATE_TABLE } from '../aws/tables.ts';

const common = {
  billingMode: BillingMode.PAY_PER_REQUEST,
  pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  encryption: TableEncryption.AWS_MANAGED,
  // Jobs and their history outlive a stack update gone wrong; `cdk destroy` leaves them (see docs/deploy.md).
  removalPolicy: RemovalPolicy.RETAIN,
} as const;

export class TesseraTables extends Construct {
  readonly jobs: Table;
  readonly profiles: Table;
  readonly hosts: Table;
  readonly schedulerState: Table;

  /** `keepLegacyChangeIndex`: also the former whole-item change index, for a two-step upgrade (docs/deploy.md). */
  constructor(scope: Construct, id: string, props: { keepLegacyChangeIndex?: boolean } = {}) {
    super(scope, id);
    this.jobs = new Table(this, 'Jobs', {
      ...common,
      partitionKey: { name: JOBS_TABLE.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: JOBS_TABLE.ttlAttribute,
    });
    const indexes = [
      ...Object.values(JOBS_TABLE.indexes),
      ...(props.keepLegacyChangeIndex ? [JOBS_TABLE.legacyChangeIndex] : []),
    ];
    for (const index of indexes) {
      this.jobs.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.NUMBER },
        ...(index.projection === 'ALL'
          ? { projectionType: ProjectionType.ALL }
          : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
      });
    }
    this.profiles = new Table(this, 'Profiles', {
      ...common,
      partitionKey: { name: PROFILES_TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: PROFILES_TABLE.sortKey, type: AttributeType.STRING },
    });
    this.hosts = new Table(this, 'Hosts', {
      ...common,
      partitionKey: { name: HOSTS_TABLE.partitionKey, type: AttributeType.STRING },
      timeToLiveAttribute: HOSTS_TABLE.ttlAttribute,
    });
    const byState = HOSTS_TABLE.indexes.byState;
    this.hosts.addGlobalSecondaryIndex({
      indexName: byState.name,
      partitionKey: { name: byState.partitionKey, type: AttributeType.STRING },
      sortKey: { name: byState.sortKey, type: AttributeType.NUMBER },
      projectionType: ProjectionType.ALL,
    });
    this.schedulerState = new Table(this, 'SchedulerState', {
      ...common,
      partitionKey: { name: SCHEDULER_STATE_TABLE.partitionKey, type: AttributeType.STRING },
    });
  }
}
