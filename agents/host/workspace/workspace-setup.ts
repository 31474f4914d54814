/** Wires the agent's workspaces from its configuration: job directories and archive cache in the state dir. */
import { join } from 'node:path';
import type { AgentConfig } from '../config.ts';
import { createS3Client } from '../storage/s3-client.ts';
import { WorkdirCache } from './fetch-workdir.ts';
import { JobWorkspaces } from './job-workspaces.ts';
import { WorkspaceLauncher } from './workspace-launcher.ts';

export const workspaceLauncher = (
  config: Pick<AgentConfig, 'stateDir' | 'aws' | 'containerRuntime'>,
): WorkspaceLauncher =>
  new WorkspaceLauncher(
    new JobWorkspaces({
      root: join(config.stateDir, 'workspaces'),
      cache: new WorkdirCache(join(config.stateDir, 'workdir-cache'), createS3Client(config.aws)),
      containerRuntime: config.containerRuntime,
    }),
    config.containerRuntime,
  );
