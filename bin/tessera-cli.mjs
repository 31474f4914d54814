#!/usr/bin/env node
// The `tessera` command: registers tsx so the TypeScript CLI runs without a build step.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
