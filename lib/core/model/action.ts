import type { Lifecycle } from './cluster.ts';
import type { GpuTypeId } from './gpu.ts';
import type { Allocation } from './plan.ts';

export type StopReason = 'preempted' | 'finished' | 'cancelled' | 'unschedulable' | 'failed';

/** What the shells (simulator executor, Lambda control plane, local cluster) must do after a round. */
export type Action =
  | {
      readonly kind: 'start';
      readonly jobId: string;
      readonly allocation: Allocation;
      readonly resumeStep: number;
    }
  | { readonly kind: 'stop'; readonly jobId: string; readonly reason: StopReason }
  | { readonly kind: 'checkpoint'; readonly jobId: string }
  | {
      readonly kind: 'rescale';
      readonly jobId: string;
      readonly from: Allocation;
      readonly to: Allocation;
      readonly resumeStep: number;
    }
  | {
      readonly kind: 'migrate';
      readonly jobId: string;
      readonly from: Allocation;
      readonly to: Allocation;
      readonly resumeStep: number;
    }
  | {
      readonly kind: 'launchInstances';
      readonly gpuType: GpuTypeId;
      readonly instanceType: string;
      readonly count: number;
      readonly lifecycle: Lifecycle;
    }
  | { readonly kind: 'terminateInstance'; readonly hostId: string };

export type ActionKind = Action['kind'];
