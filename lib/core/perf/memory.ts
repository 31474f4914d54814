import type { ModelProfile } from '../catalog/models.ts';

const GIB = 2 ** 30;

export interface MemoryDemand {
  /** Model-parallel degree: the training state is split over this many GPUs. */
  readonly modelParallel: number;
  /** Samples one data-parallel replica processes per iteration. */
  readonly localBatch: number;
  /** Micro-batch of hybrid training (activations held at once); ignored for data-parallel models. */
  readonly microBatchSize: number;
  readonly overheadGiB: number;
}

/**
 * Device bytes one GPU needs: its share of the training state (weights, gradients, optimizer), the
 * activations it keeps for backward, and a fixed per-process overhead. Data-parallel models hold their
 * whole local batch's activations; hybrid models run micro-batches, and with 1F1B pipelining a stage holds
 * at most as many in-flight micro-batches as there are stages, each with 1/stages of the layers — i.e. one
 * micro-batch's worth of the model's activations.
 */
export const memoryPerGpuBytes = (profile: ModelProfile, d: MemoryDemand): number => {
  const state = (profile.parameters * profile.memory.bytesPerParameter) / d.modelParallel;
  const samplesHeld =
    profile.kind === 'hybrid' ? Math.min(Math.ceil(d.localBatch), d.microBatchSize) : Math.ceil(d.localBatch);
  return state + samplesHeld * profile.memory.activationBytesPerSample + d.overheadGiB * GIB;
};

export const gibToBytes = (gib: number): number => gib * GIB;
