/** The dashboard server: public surface. */
export {
  type ApiCaller,
  type ApiRequest,
  type ApiResponse,
  clientApiCaller,
  runnerApiCaller,
} from './api-caller.ts';
export { type ClusterView, type Snapshot, SnapshotSeries, snapshotOf } from './history.ts';
export { type Dashboard, type DashboardOptions, startDashboard, WEB_DIR } from './server.ts';
