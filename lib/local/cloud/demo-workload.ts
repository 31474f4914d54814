/** A small workload the local cloud submits on start, so a first run has something to watch. */
import { fileURLToPath } from 'node:url';

/** The simulated trainer (docs/host-agent.md): speaks the trainer protocol, no GPU needed. */
export const SIM_TRAINER = fileURLToPath(new URL('../../../agents/host/sim-trainer.mjs', import.meta.url));

/** A command that trains for `iterations` steps of `stepMs` with the simulated trainer. */
export const simulatedTrainerCommand = (stepMs: number): string[] => [
  'node',
  SIM_TRAINER,
  '--step-ms',
  String(stepMs),
];

export const demoJobs = (): Record<string, unknown>[] => [
  {
    name: 'demo-resnet50',
    model: 'resnet50',
    batchSize: 64,
    gpus: 1,
    gpuTypes: ['T4'],
    iterations: 600,
    command: simulatedTrainerCommand(100),
    clientToken: 'demo-resnet50',
  },
  {
    name: 'demo-bert',
    model: 'bert-base',
    batchSize: 32,
    gpus: 2,
    iterations: 900,
    command: simulatedTrainerCommand(100),
    clientToken: 'demo-bert',
  },
  {
    name: 'demo-vgg19',
    model: 'vgg19',
    batchSize: 64,
    gpus: 4,
    gpuTypes: ['A10G'],
    iterations: 1200,
    command: simulatedTrainerCommand(100),
    clientToken: 'demo-vgg19',
  },
];
