/**
 * The dashboard server: serves `web/` (and uPlot from node_modules) and a small JSON API that calls the Tessera API
 * on the user's behalf, so the browser never holds AWS credentials. It binds to 127.0.0.1 by default; a cancel must
 * carry the `x-tessera-dashboard` header, which another site's page cannot send without a CORS preflight this server
 * never grants.
 *
 *   GET    /api/overview          cluster, every visible job, the snapshot series — one round trip per refresh
 *   GET    /api/jobs/<id>         one job
 *   DELETE /api/jobs/<id>         cancel it (the API's DELETE /jobs/{id})
 *   GET    /api/jobs/<id>/logs    a page of its worker output (the API's GET /jobs/{id}/logs: cursor, rank, limit)
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiCaller } from './api-caller.ts';
import { type ClusterView, SnapshotSeries } from './history.ts';

export interface DashboardOptions {
  readonly api: ApiCaller;
  /** 0 = any free port. */
  readonly port?: number;
  readonly host?: string;
  /**
   * Seconds between refreshes of the cluster snapshot and the job list (default 5). Pages are served the latest
   * refresh at once, so a page load does not wait for the API (only when it is older than three intervals).
   */
  readonly sampleSeconds?: number;
  /** At most this many jobs are listed (the API's pages of 100 are followed up to it). */
  readonly maxJobs?: number;
  /** Epoch seconds (default: the wall clock). */
  readonly clock?: () => number;
}

export interface Dashboard {
  readonly url: string;
  readonly series: SnapshotSeries;
  stop(): Promise<void>;
}

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../web');
const UPLOT_DIR = dirname(createRequire(import.meta.url).resolve('uplot'));
const STATIC: Readonly<Record<string, string>> = {
  '/': join(WEB_DIR, 'index.html'),
  '/app.js': join(WEB_DIR, 'app.js'),
  '/style.css': join(WEB_DIR, 'style.css'),
  '/vendor/uplot.js': join(UPLOT_DIR, 'uPlot.iife.min.js'),
  '/vendor/uplot.css': join(UPLOT_DIR, 'uPlot.min.css'),
};
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export const startDashboard = async (options: DashboardOptions): Promise<Dashboard> => {
  const clock = options.clock ?? (() => Date.now() / 1000);
  const series = new SnapshotSeries();
  const maxJobs = options.maxJobs ?? 2000;

  const sample = async () => {
    const cluster = await options.api({ method: 'GET', path: '/cluster' });
    if (cluster.status === 200) series.add(clock(), cluster.body as ClusterView);
    return cluster;
  };

  const listJobs = async () => {
    const jobs: unknown[] = [];
    let nextToken: string | undefined;
    do {
      const page = await options.api({
        method: 'GET',
        path: '/jobs',
        query: { limit: '100', ...(nextToken ? { nextToken } : {}) },
      });
      if (page.status !== 200) return page;
      const body = page.body as { jobs: unknown[]; nextToken?: string };
      jobs.push(...body.jobs);
      nextToken = body.nextToken;
    } while (nextToken && jobs.length < maxJobs);
    return { status: 200, body: jobs.slice(0, maxJobs) };
  };

  /** The latest overview: cluster, jobs, snapshot series; refreshed by the timer, on demand, and after a cancel. */
  let overview: { at: number; status: number; json: string } | undefined;
  let inflight: Promise<void> | undefined;
  const sampleSeconds = options.sampleSeconds ?? 5;
  const maxStaleSeconds = Math.max(3 * sampleSeconds, 5);
  const build = async () => {
    const [cluster, jobs] = await Promise.all([sample(), listJobs()]);
    const at = clock();
    // Serialised once per refresh, not once per page load.
    if (cluster.status !== 200) overview = { at, status: cluster.status, json: JSON.stringify(cluster.body) };
    else if (jobs.status !== 200) overview = { at, status: jobs.status, json: JSON.stringify(jobs.body) };
    else
      overview = {
        at,
        status: 200,
        json: JSON.stringify({
          cluster: cluster.body,
          jobs: jobs.body,
          history: series.all(),
          at,
        }),
      };
  };
  const refresh = async (force = false): Promise<void> => {
    if (inflight && force) await inflight.catch(() => {});
    inflight ??= build().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const file = STATIC[url.pathname];
    if (req.method === 'GET' && file) {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      });
      return res.end(body);
    }
    if (req.method === 'GET' && url.pathname === '/api/overview') {
      const age = overview ? clock() - overview.at : Number.POSITIVE_INFINITY;
      if (age > maxStaleSeconds) await refresh();
      const latest = overview!;
      return sendText(res, latest.status, latest.json);
    }
    const job = /^\/api\/jobs\/(job-[A-Za-z0-9-]{1,64})$/.exec(url.pathname);
    if (job && req.method === 'GET') {
      const r = await options.api({ method: 'GET', path: `/jobs/${job[1]}` });
      return send(res, r.status, r.body);
    }
    const logs = /^\/api\/jobs\/(job-[A-Za-z0-9-]{1,64})\/logs$/.exec(url.pathname);
    if (logs && req.method === 'GET') {
      const query: Record<string, string> = {};
      for (const name of ['cursor', 'rank', 'limit']) {
        const value = url.searchParams.get(name);
        if (value !== null) query[name] = value;
      }
      const r = await options.api({ method: 'GET', path: `/jobs/${logs[1]}/logs`, query });
      return send(res, r.status, r.body);
    }
    if (job && req.method === 'DELETE') {
      if (req.headers['x-tessera-dashboard'] !== '1')
        return send(res, 403, { error: 'Forbidden', message: 'cancel only from the dashboard page' });
      const r = await options.api({ method: 'DELETE', path: `/jobs/${job[1]}` });
      if (r.status < 300) await refresh(true); // the page's next overview shows the cancel
      return send(res, r.status, r.body);
    }
    return send(res, 404, { error: 'NotFound', message: `no route ${req.method} ${url.pathname}` });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 502, { error: 'BadGateway', message: `the Tessera API call failed: ${String(error)}` }),
    );
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => ok());
  });
  const timer = setInterval(
    () => {
      sample().catch(() => {}); // a missed sample is a gap in the charts, nothing more
    },
    (options.sampleSeconds ?? 10) * 1000,
  );
  timer.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/`,
    series,
    stop: async () => {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
};

const send = (res: ServerResponse, status: number, body: unknown) =>
  sendText(res, status, JSON.stringify(body));

const sendText = (res: ServerResponse, status: number, json: string) => {
  if (res.headersSent) return res.end();
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(json);
};
