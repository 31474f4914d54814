/** How the job commands print jobs, one job and the cluster as text (pure: views in, text out). */
import type { ClusterView, HostView, JobView } from '../client/types.ts';
import { getInstanceOffering } from '../core/catalog/instances.ts';
import { formatTable } from './table.ts';

const DASH = '–';

/** Epoch seconds of an ISO time (the API's format). */
const epochSecondsOf = (iso: string): number => Date.parse(iso) / 1000;

/** "3m 20s ago"-style age of an ISO time at `now` (epoch seconds). */
export const age = (iso: string | undefined, now: number): string => {
  if (!iso) return DASH;
  const s = Math.max(0, Math.round(now - epochSecondsOf(iso)));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600)}h`;
};

/** A future time as "in 4m" (or the clock time when far), "now" when past; `now` in epoch seconds. */
export const until = (iso: string | undefined, now: number): string => {
  if (!iso) return DASH;
  const s = Math.round(epochSecondsOf(iso) - now);
  if (Number.isNaN(s)) return DASH;
  if (s <= 0) return 'now';
  return `in ${age(new Date((now - s) * 1000).toISOString(), now)}`;
};

const gpusOf = (job: JobView): string =>
  job.allocation
    ? `${job.allocation.gpus}×${job.allocation.gpuType}`
    : `${job.gpus}×${job.gpuTypes?.join('|') ?? 'any'}`;

const percent = (job: JobView): string =>
  `${Math.floor((100 * Math.min(job.progress, job.iterations)) / job.iterations)}%`;

/** The jobs as a table at `now` (epoch seconds). */
export const jobsTable = (jobs: readonly JobView[], now: number): string =>
  formatTable(
    ['JOB', 'NAME', 'STATUS', 'GPUS', 'PROGRESS', 'QUEUE', 'WHY IT WAITS', 'EST. START', 'AGE'],
    jobs.map((job) => [
      job.jobId,
      job.name ?? DASH,
      job.cancelRequested && job.status === 'running' ? 'cancelling' : job.status,
      gpusOf(job),
      percent(job),
      job.queuePosition !== undefined ? String(job.queuePosition) : DASH,
      job.waitReason ?? DASH,
      until(job.estimatedStart, now),
      age(job.submittedAt, now),
    ]),
    { leftAligned: 7 },
  );

/** Where the scheduler's figures for the job's model come from, in words. */
export const modelBasisText = (job: JobView): string => {
  switch (job.modelBasis) {
    case 'catalog':
      return 'catalog';
    case 'declared':
      return 'declared profile, not yet measured';
    case 'estimated':
      return 'estimated: no profile, conservative until measured';
    case 'calibrated':
      return `calibrated from ${job.calibrationSamples ?? 'measured'} throughput report(s)`;
    default:
      return 'catalog';
  }
};
/** Where the job's code comes from, when it says (image, working directory, setup). */
const codeLines = (job: JobView): string[] => [
  ...(job.image ? [`  image:       ${job.image}`] : []),
  ...(job.workdir ? [`  workdir:     ${job.workdir}`] : []),
  ...(job.setup ? [`  setup:       ${job.setup.join(' && ')}`] : []),
];

/** The timeline holds the job's whole history (from `submitted`; it keeps only the newest entries) and no start. */
export const neverStarted = (job: JobView): boolean => {
  const timeline = job.timeline ?? [];
  return timeline[0]?.kind === 'submitted' && !timeline.some((e) => e.kind === 'started');
};

/** One job: spec, placement, wait, and its timeline. */
/** One job in full at `now` (epoch seconds). */
export const jobDetails = (job: JobView, now: number): string => {
  const lines = [
    `${job.jobId}${job.name ? ` (${job.name})` : ''}`,
    `  status:      ${job.status}${job.cancelRequested ? ' (cancel requested)' : ''}${job.failureReason ? ` — ${job.failureReason}` : ''}`,
    `  model:       ${job.modelName ?? job.model} (${modelBasisText(job)}), batch ${job.batchSize}, ${job.iterations} iterations, priority ${job.priority}`,
    `  asks for:    ${job.gpus} GPU(s)${job.gpuTypes ? ` of ${job.gpuTypes.join(', ')}` : ''}${job.elastic ? ` (elastic, maxP ${job.elastic.maxP})` : ''}`,
    `  command:     ${job.command.join(' ')}`,
    ...codeLines(job),
    `  progress:    ${Math.min(job.progress, job.iterations)}/${job.iterations} (${percent(job)})${job.iterationsPerSecond !== undefined ? `, ${job.iterationsPerSecond.toFixed(2)} it/s` : ''}`,
    `  checkpoint:  ${job.checkpointStep >= 0 ? `step ${job.checkpointStep}` : 'none yet'}; ${job.restarts} restart(s), ${job.migrations} migration(s)`,
  ];
  if (job.predictedIterationsPerSecond !== undefined)
    lines.push(
      `  throughput:  predicted ${job.predictedIterationsPerSecond.toFixed(2)} it/s on this placement${job.iterationsPerSecond !== undefined ? `, measured ${job.iterationsPerSecond.toFixed(2)} it/s` : ''}`,
    );
  if (job.allocation)
    lines.push(
      `  placement:   ${job.allocation.gpus} × ${job.allocation.gpuType} on ${job.allocation.hosts.map((h) => `${h.hostId} [GPU ${h.gpus.join(',')}]`).join(', ')}${job.allocation.packedWith ? ` (packed with ${job.allocation.packedWith})` : ''}`,
    );
  if (job.waitReason || job.queuePosition !== undefined || job.estimatedStart)
    lines.push(
      `  waiting:     ${job.waitReason ?? DASH}; queue position ${job.queuePosition ?? DASH}; estimated start ${job.estimatedStart ? `${job.estimatedStart} (${until(job.estimatedStart, now)})` : DASH}`,
    );
  lines.push('  timeline:');
  for (const event of job.timeline ?? [])
    lines.push(
      `    ${event.at}  ${event.kind.padEnd(15)} ${[event.detail, event.hosts?.length ? `on ${event.hosts.join(', ')}` : undefined].filter(Boolean).join(' ')}`.trimEnd(),
    );
  if ((job.timeline ?? []).length === 0) lines.push(`    ${job.submittedAt}  submitted`);
  // The reason above is the agent's summary; what the program itself printed is in the logs — unless no worker ever
  // ran (failed as unschedulable before it started: its whole history is in the timeline, without a start).
  if (job.status === 'failed')
    lines.push(
      neverStarted(job)
        ? '  output:      none: it never started, no worker ran'
        : `  output:      tessera logs ${job.jobId}`,
    );
  return lines.join('\n');
};

/** On-demand list price of a host's instance (USD/hour), when the catalog knows its type. */
export const hourlyPrice = (host: HostView): number | undefined => {
  if (!host.instanceType) return undefined;
  try {
    return getInstanceOffering(host.instanceType).onDemandPerHour;
  } catch {
    return undefined;
  }
};

export const clusterSummary = (cluster: ClusterView): string => {
  const hosts = formatTable(
    ['HOST', 'STATE', 'INSTANCE', 'GPU', 'BUSY', 'FREE', '$/HOUR'],
    cluster.hosts.map((h) => [
      h.hostId,
      h.state,
      h.instanceType ?? DASH,
      h.gpuType ?? DASH,
      String(h.busyGpus),
      String(h.state === 'active' ? h.gpus - h.busyGpus : 0),
      hourlyPrice(h)?.toFixed(2) ?? DASH,
    ]),
    { leftAligned: 4 },
  );
  const byType = new Map<string, { hosts: number; gpus: number; busy: number; price: number }>();
  for (const h of cluster.hosts) {
    const key = h.gpuType ?? '(unknown)';
    const row = byType.get(key) ?? { hosts: 0, gpus: 0, busy: 0, price: 0 };
    row.hosts += 1;
    row.gpus += h.state === 'active' ? h.gpus : 0;
    row.busy += h.busyGpus;
    row.price += hourlyPrice(h) ?? 0;
    byType.set(key, row);
  }
  const types = formatTable(
    ['GPU TYPE', 'HOSTS', 'GPUS', 'BUSY', 'FREE', '$/HOUR'],
    [...byType].map(([type, r]) => [
      type,
      String(r.hosts),
      String(r.gpus),
      String(r.busy),
      String(r.gpus - r.busy),
      r.price.toFixed(2),
    ]),
  );
  const total = [...byType.values()].reduce((n, r) => n + r.price, 0);
  const jobs =
    Object.entries(cluster.jobs)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ') || 'none active';
  return [
    `round ${cluster.round}${cluster.lastRoundAt ? ` at ${cluster.lastRoundAt}` : ''}; ${cluster.gpus} GPUs, ${cluster.busyGpus} busy; your jobs: ${jobs}${cluster.jobsAsOf ? ` (as of ${cluster.jobsAsOf}, ${cluster.gpusInUse ?? 0} GPUs)` : ''}; $${total.toFixed(2)}/hour (on-demand list prices)`,
    '',
    cluster.hosts.length > 0 ? hosts : '(no hosts: the fleet launches instances when jobs wait)',
    '',
    types,
  ].join('\n');
};
