/**
 * Key schemas and index names of the four tables, shared by the CDK stack (which creates them) and the
 * repositories (which query them), so both always agree.
 */
export const JOBS_TABLE = {
  partitionKey: 'jobId',
  indexes: {
    /** Every job in one status, oldest first: what the round reads. */
    byStatus: { name: 'byStatus', partitionKey: 'status', sortKey: 'submittedAt', projection: 'ALL' },
    /** One tenant's jobs, newest first: what `GET /jobs` lists. */
    byTenant: { name: 'byTenant', partitionKey: 'tenant', sortKey: 'submittedAt', projection: 'ALL' },
    /**
     * Every job by the wall-clock time of its latest write, in a few shards (so a burst of submissions does not
     * throttle one index partition): what the round reads to learn what changed since its previous read. It holds
     * only the keys, the revision and the status (enough to tell which changes matter); the round reads the bodies
     * of those from the table. A whole-item projection would write every job write's whole item a second time.
     * (Named apart from the whole-item `byChange` of earlier versions: CloudFormation cannot change an index's
     * projection, only create one and delete another, one per deployment — see LEGACY_CHANGE_INDEX.)
     */
    byChange: {
      name: 'byChangeKeys',
      partitionKey: 'changeShard',
      sortKey: 'changedAt',
      projection: ['rev', 'status'],
    },
  },
  /**
   * The whole-item change index of earlier versions, unused: kept in the stack only while a deployment upgrades
   * (context `tessera:keepLegacyChangeIndex`), so each deployment creates or deletes one index (docs/deploy.md).
   */
  legacyChangeIndex: {
    name: 'byChange',
    partitionKey: 'changeShard',
    sortKey: 'changedAt',
    projection: 'ALL',
  },
  /** Shards of the change index: `changeShard` is `c0` … `c<N-1>`, by a hash of the job id. */
  changeShards: 4,
  /** Epoch seconds after which DynamoDB may delete the item (set on terminal jobs). */
  ttlAttribute: 'expiresAt',
} as const;

export const HOSTS_TABLE = {
  partitionKey: 'hostId',
  indexes: {
    /** Hosts in one state: the round reads pending, active and draining hosts, never the lost ones. */
    byState: { name: 'byState', partitionKey: 'state', sortKey: 'stateChangedAt' },
  },
  /** Set on lost hosts, so their items do not pile up. */
  ttlAttribute: 'expiresAt',
} as const;

export const PROFILES_TABLE = { partitionKey: 'signature', sortKey: 'placement' } as const;

export const SCHEDULER_STATE_TABLE = { partitionKey: 'key' } as const;

/** How long terminal jobs and lost hosts are kept before TTL deletes them. */
export const RETENTION = { terminalJobSeconds: 90 * 86_400, lostHostSeconds: 7 * 86_400 } as const;
