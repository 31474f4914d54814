// Tessera dashboard: polls the dashboard server's /api/overview (which calls the Tessera API with the user's
// credentials) and renders the summary, the charts (uPlot), the GPU map and the job list. No build step.

const REFRESH_MS = 2000;
/** Lines of worker output the job panel keeps (the newest). */
const MAX_LOG_LINES = 500;
const ACTIVE = new Set(['queued', 'running', 'checkpointing', 'suspended']);
const state = { overview: undefined, selected: undefined, charts: {} };

const $ = (selector) => document.querySelector(selector);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k === 'style') node.style.cssText = v;
    else if (k.startsWith('data-')) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
};

/** A stable colour per job id. */
const colourOf = (jobId) => {
  let h = 0;
  for (const c of jobId) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${h % 360} 62% 58%)`;
};

const when = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');
const relative = (iso, now) => {
  if (!iso) return '';
  const s = Math.round(Date.parse(iso) / 1000 - now);
  if (s <= 0) return 'now';
  if (s < 90) return `in ${s} s`;
  if (s < 5400) return `in ${Math.round(s / 60)} min`;
  return `in ${(s / 3600).toFixed(1)} h`;
};

const api = async (path, init) => {
  const response = await fetch(path, init);
  const body = await response.json();
  if (!response.ok) throw new Error(body.message ?? `${response.status}`);
  return body;
};

async function refresh() {
  try {
    state.overview = await api('/api/overview');
    $('#error').textContent = '';
    render();
    if (state.selected) refreshLogs();
    // Navigation start to the first complete render: what the browser test reports as the load time.
    if (performance.getEntriesByName('dashboard-ready').length === 0) performance.mark('dashboard-ready');
  } catch (error) {
    $('#error').textContent = `cannot reach the Tessera API: ${error.message}`;
  }
}

function render() {
  const { cluster, jobs, history } = state.overview;
  renderSummary(cluster, history.at(-1));
  renderCharts(history);
  renderGpuMap(cluster, jobs);
  renderTenants(jobs);
  renderJobs(jobs);
  renderDetail();
  document.body.dataset.loaded = String(jobs.length);
}

function renderSummary(cluster, last) {
  const items = [
    ['Round', cluster.round],
    ['GPUs busy', `${cluster.busyGpus} / ${cluster.gpus}`],
    ['Hosts', cluster.hosts.length],
    ['Waiting', (cluster.jobs.queued ?? 0) + (cluster.jobs.suspended ?? 0)],
    ['Running', (cluster.jobs.running ?? 0) + (cluster.jobs.checkpointing ?? 0)],
    ['$/hour', last ? last.dollarsPerHour.toFixed(2) : '–'],
  ];
  $('#summary').replaceChildren(
    ...items.map(([k, v]) => el('div', {}, el('dt', {}, k), el('dd', {}, String(v)))),
  );
}

function renderCharts(history) {
  const t = history.map((p) => p.t);
  const series = {
    'chart-util': [t, history.map((p) => Math.round(p.utilisation * 1000) / 10)],
    'chart-queue': [t, history.map((p) => p.queued)],
    'chart-cost': [t, history.map((p) => p.dollarsPerHour)],
  };
  const colours = { 'chart-util': '#3559e0', 'chart-queue': '#dc6803', 'chart-cost': '#079455' };
  for (const [id, data] of Object.entries(series)) {
    const existing = state.charts[id];
    if (existing) {
      existing.setData(data);
      showAtLeastAMinute(existing, t);
      continue;
    }
    const target = document.getElementById(id);
    const width = Math.max(200, target.clientWidth || 300);
    state.charts[id] = new window.uPlot(
      {
        width,
        height: 140,
        legend: { show: false },
        scales: { x: { time: true }, ...(id === 'chart-util' ? { y: { range: [0, 100] } } : {}) },
        series: [{}, { stroke: colours[id], width: 2, fill: `${colours[id]}22` }],
        axes: [{ size: 30 }, { size: 50 }],
      },
      data,
      target,
    );
    showAtLeastAMinute(state.charts[id], t);
  }
}

/** With a sample or two uPlot would span years; show the last minute instead. */
function showAtLeastAMinute(chart, t) {
  const last = t.at(-1);
  if (last !== undefined && last - t[0] < 60) chart.setScale('x', { min: last - 60, max: last + 5 });
}

function renderGpuMap(cluster, jobs) {
  const owners = new Map();
  for (const job of jobs) {
    if (!job.allocation || !ACTIVE.has(job.status)) continue;
    for (const slice of job.allocation.hosts)
      for (const gpu of slice.gpus ?? []) {
        const key = `${slice.hostId}#${gpu}`;
        owners.set(key, [...(owners.get(key) ?? []), job.jobId]);
      }
  }
  const hosts = [...cluster.hosts].sort((a, b) => a.hostId.localeCompare(b.hostId));
  $('#gpu-map').replaceChildren(
    ...hosts.map((host) =>
      el(
        'div',
        { class: `host ${host.state}`, 'data-host': host.hostId },
        el(
          'span',
          { class: 'name', title: host.hostId },
          `${host.hostId} · ${host.gpuType ?? '?'} · ${host.busyGpus}/${host.gpus} busy`,
        ),
        ...Array.from({ length: host.gpus }, (_, gpu) => {
          const ids = owners.get(`${host.hostId}#${gpu}`) ?? [];
          const cell = el('span', {
            class: ids.length ? 'gpu busy' : 'gpu',
            title: ids.length ? ids.join(' + ') : `GPU ${gpu} free`,
          });
          if (ids.length === 1) cell.style.background = colourOf(ids[0]);
          if (ids.length > 1)
            cell.style.background = `linear-gradient(135deg, ${colourOf(ids[0])} 50%, ${colourOf(ids[1])} 50%)`;
          if (ids.length) cell.addEventListener('click', () => select(ids[0]));
          return cell;
        }),
      ),
    ),
  );
}

function renderTenants(jobs) {
  const select = $('#filter-tenant');
  const tenants = [...new Set(jobs.map((j) => j.tenant))].sort();
  const have = [...select.options].map((o) => o.value).filter(Boolean);
  if (have.join('\n') === tenants.join('\n')) return;
  const current = select.value;
  select.replaceChildren(
    el('option', { value: '' }, 'all'),
    ...tenants.map((t) => el('option', { value: t }, t)),
  );
  select.value = tenants.includes(current) ? current : '';
}

function renderJobs(jobs) {
  const status = $('#filter-status').value;
  const tenant = $('#filter-tenant').value;
  const shown = jobs
    .filter((j) => !status || (status === 'active' ? ACTIVE.has(j.status) : j.status === status))
    .filter((j) => !tenant || j.tenant === tenant)
    .sort(
      (a, b) =>
        (a.queuePosition ?? 1e9) - (b.queuePosition ?? 1e9) ||
        (b.submittedAt ?? '').localeCompare(a.submittedAt ?? ''),
    );
  const now = state.overview.at;
  $('#job-count').textContent = `${shown.length} of ${jobs.length} jobs`;
  // One HTML string for the whole table: a thousand rows render several times faster than element by element.
  $('#jobs tbody').innerHTML = shown.map((job) => rowHtml(job, now)).join('');
}

const escapeHtml = (text) =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );

function rowHtml(job, now) {
  const e = escapeHtml;
  const gpus = job.allocation
    ? `${job.allocation.gpus} × ${job.allocation.gpuType}`
    : `${job.gpus}${job.gpuTypes ? ` × ${job.gpuTypes.join('|')}` : ''}`;
  const pct = job.iterations ? Math.floor((100 * job.progress) / job.iterations) : 0;
  const status = job.cancelRequested ? `${job.status} (cancelling)` : job.status;
  const cancel =
    ACTIVE.has(job.status) && !job.cancelRequested
      ? `<button class="cancel" data-cancel="${e(job.jobId)}" type="button">Cancel</button>`
      : '';
  return (
    `<tr data-job="${e(job.jobId)}"${job.jobId === state.selected ? ' class="selected"' : ''}>` +
    `<td><span class="swatch" style="background:${colourOf(job.jobId)}"></span>${job.name ? `${e(job.name)} ` : ''}<code>${e(job.jobId)}</code></td>` +
    `<td>${e(job.tenant)}</td><td><span class="status ${e(job.status)}">${e(status)}</span></td><td>${e(gpus)}</td>` +
    `<td>${job.queuePosition ? `#${job.queuePosition}` : ''}</td><td class="reason">${e(job.waitReason ?? '')}</td>` +
    `<td title="${e(job.estimatedStart ?? '')}">${relative(job.estimatedStart, now)}</td><td>${pct}%</td><td>${cancel}</td></tr>`
  );
}

/** What happened to a job, from the fields the API returns (and its event list when the API gives one). */
function timelineOf(job) {
  if (Array.isArray(job.timeline))
    return job.timeline.map((e) => [
      e.at,
      `${e.kind}${e.detail ? `: ${e.detail}` : ''}${e.hosts?.length ? ` on ${e.hosts.join(', ')}` : ''}`,
    ]);
  const events = [[job.submittedAt, `submitted: ${job.gpus} GPU(s), ${job.model}, batch ${job.batchSize}`]];
  if (job.waitReason) {
    const eta = job.estimatedStart ? `; estimated start ${when(job.estimatedStart)}` : '';
    events.push([job.updatedAt, `waiting (#${job.queuePosition ?? '?'}): ${job.waitReason}${eta}`]);
  }
  if (job.startedAt && job.allocation) {
    const where = job.allocation.hosts.map((h) => `${h.hostId} [${(h.gpus ?? []).join(',')}]`).join(', ');
    const packed = job.allocation.packedWith ? `, packed with ${job.allocation.packedWith}` : '';
    events.push([
      job.startedAt,
      `started on ${job.allocation.gpus} × ${job.allocation.gpuType}: ${where}${packed}`,
    ]);
  }
  if (job.restarts) events.push([undefined, `restarted ${job.restarts} time(s) (preemption or host loss)`]);
  if (job.migrations) events.push([undefined, `migrated ${job.migrations} time(s)`]);
  if (job.checkpointStep >= 0) events.push([undefined, `latest checkpoint at step ${job.checkpointStep}`]);
  if (job.cancelRequested) events.push([job.updatedAt, 'cancel requested']);
  if (job.finishedAt || ['finished', 'failed', 'cancelled'].includes(job.status))
    events.push([
      job.finishedAt ?? job.updatedAt,
      `${job.status}${job.failureReason ? `: ${job.failureReason}` : ''}`,
    ]);
  return events;
}

/** The model and where the scheduler's figures for it come from (docs/job-spec.md "Models outside the catalog"). */
function modelText(job) {
  const basis = {
    declared: 'declared profile',
    estimated: 'estimated: no profile, conservative until measured',
    calibrated: `calibrated from ${job.calibrationSamples ?? 'measured'} report(s)`,
  }[job.modelBasis];
  const predicted = job.predictedIterationsPerSecond
    ? `, predicted ${job.predictedIterationsPerSecond.toFixed(2)}/s`
    : '';
  return `model ${job.modelName ?? job.model}${basis ? ` (${basis}${predicted})` : ''}`;
}

function renderDetail() {
  const aside = $('#job-detail');
  const job = state.overview?.jobs.find((j) => j.jobId === state.selected);
  if (!job) {
    aside.hidden = true;
    return;
  }
  aside.hidden = false;
  aside.replaceChildren(
    el('h3', {}, job.name ?? job.jobId),
    el(
      'div',
      {},
      el('code', {}, job.jobId),
      ` · ${job.tenant} · `,
      el('span', { class: `status ${job.status}` }, job.status),
    ),
    el(
      'div',
      {},
      `progress ${job.progress} / ${job.iterations} iterations${job.iterationsPerSecond ? ` at ${job.iterationsPerSecond.toFixed(2)}/s` : ''}`,
    ),
    el('div', {}, modelText(job)),
    el(
      'ol',
      { class: 'timeline' },
      ...timelineOf(job).map(([at, text]) => el('li', {}, at ? el('time', {}, when(at)) : '', text)),
    ),
    el('h4', {}, 'Output'),
    el('pre', { id: 'job-logs', class: 'logs' }),
  );
  renderLogs();
}

/** Reads the selected job's new output (GET /jobs/{id}/logs from the last cursor) into the panel. */
async function refreshLogs() {
  const jobId = state.selected;
  if (state.logs?.jobId !== jobId) state.logs = { jobId, cursor: undefined, lines: [], error: '' };
  const logs = state.logs;
  try {
    for (let page = 0; page < 5; page++) {
      const query = logs.cursor ? `?cursor=${encodeURIComponent(logs.cursor)}` : '';
      const body = await api(`/api/jobs/${jobId}/logs${query}`);
      if (state.logs !== logs) return; // another job was selected meanwhile
      logs.lines.push(...body.lines);
      logs.cursor = body.nextCursor;
      if (!body.more) break;
    }
    logs.lines = logs.lines.slice(-MAX_LOG_LINES);
    logs.error = '';
  } catch (error) {
    logs.error = error.message;
  }
  renderLogs();
}

function renderLogs() {
  const pre = $('#job-logs');
  const logs = state.logs;
  if (!pre || !logs || logs.jobId !== state.selected) return;
  const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
  if (logs.error) pre.textContent = `logs unavailable: ${logs.error}`;
  else if (logs.lines.length === 0) pre.textContent = 'no output shipped yet';
  else pre.textContent = logs.lines.map((l) => `[rank ${l.rank}] ${l.text}`).join('\n');
  if (atBottom) pre.scrollTop = pre.scrollHeight;
}

function select(jobId) {
  state.selected = jobId;
  renderJobs(state.overview.jobs);
  renderDetail();
  refreshLogs();
}

async function cancel(jobId, button) {
  button.disabled = true;
  try {
    await api(`/api/jobs/${jobId}`, { method: 'DELETE', headers: { 'x-tessera-dashboard': '1' } });
    await refresh();
  } catch (error) {
    $('#error').textContent = `cancel failed: ${error.message}`;
    button.disabled = false;
  }
}

$('#jobs tbody').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-cancel]');
  if (button) return cancel(button.dataset.cancel, button);
  const row = event.target.closest('tr[data-job]');
  if (row) select(row.dataset.job);
});
$('#filter-status').addEventListener('change', () => state.overview && renderJobs(state.overview.jobs));
$('#filter-tenant').addEventListener('change', () => state.overview && renderJobs(state.overview.jobs));
const statusSelect = $('#filter-status');
for (const s of ['queued', 'running', 'checkpointing', 'suspended', 'finished', 'failed', 'cancelled'])
  statusSelect.append(el('option', { value: s }, s));

refresh();
setInterval(refresh, REFRESH_MS);
