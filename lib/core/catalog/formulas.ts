/**
 * Standard size formulas for model families whose catalog entries are derived from an architecture
 * configuration rather than a published per-sample count. Byte counts are decimal.
 */

export interface DerivedSize {
  readonly parameters: number;
  /** Training FLOPs per sample (forward + backward). */
  readonly flopsPerSample: number;
  readonly activationBytesPerSample: number;
  /** Bytes crossing a pipeline-stage boundary per sample (fp16 hidden states). */
  readonly boundaryActivationBytesPerSample: number;
}

export interface TransformerConfig {
  readonly layers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly seqLen: number;
  readonly vocab: number;
}

/**
 * Dense transformer (GPT/BERT style).
 * Parameters: 12·l·h² + V·h. FLOPs per sample: 72·s·l·h²·(1 + s/(6h) + V/(12·l·h)) — Narayanan et al.,
 * "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM" (SC '21), without
 * activation recomputation. Activations (fp16, no recomputation): s·h·l·(34 + 5·a·s/h) bytes — Korthikanti
 * et al., "Reducing Activation Recomputation in Large Transformer Models" (2022).
 */
export const denseTransformer = (c: TransformerConfig): DerivedSize => {
  const { layers: l, hidden: h, heads: a, seqLen: s, vocab: v } = c;
  return {
    parameters: 12 * l * h * h + v * h,
    flopsPerSample: 72 * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h)),
    activationBytesPerSample: s * h * l * (34 + (5 * a * s) / h),
    boundaryActivationBytesPerSample: 2 * s * h,
  };
};

/**
 * Same transformer trained with selective activation recomputation (Korthikanti et al.): only the
 * s·h·l·34 bytes per sample stay resident; the recomputed attention costs a few percent of FLOPs,
 * which is ignored. Used for the models trained with Megatron-style 3D parallelism.
 */
export const recomputedTransformer = (c: TransformerConfig): DerivedSize => {
  const dense = denseTransformer(c);
  return { ...dense, activationBytesPerSample: c.seqLen * c.hidden * c.layers * 34 };
};

export interface MoeConfig {
  readonly layers: number;
  readonly hidden: number;
  readonly experts: number;
  readonly seqLen: number;
  readonly vocab: number;
}

/**
 * GShard mixture of experts (Lepikhin et al., 2020): every other FFN is a mixture of `experts` FFNs
 * (4h inner size) with top-2 routing. Parameters: (l/2)·12h² + (l/2)·(4h² + 8·E·h²) + V·h. Compute runs
 * only the two routed experts: FLOPs per sample = 6·N_active·s + 12·l·s²·h (attention scores).
 * Activations with selective recomputation, as for dense transformers.
 */
export const gshardMoe = (c: MoeConfig): DerivedSize => {
  const { layers: l, hidden: h, experts: e, seqLen: s, vocab: v } = c;
  const half = l / 2;
  const parameters = half * 12 * h * h + half * (4 * h * h + 8 * e * h * h) + v * h;
  const activeParameters = half * 12 * h * h + half * (4 * h * h + 2 * 8 * h * h) + v * h;
  return {
    parameters,
    flopsPerSample: 6 * activeParameters * s + 12 * l * s * s * h,
    activationBytesPerSample: s * h * l * 34,
    boundaryActivationBytesPerSample: 2 * s * h,
  };
};

/** ResNet-50 at 224×224: 4.11 GMACs forward over 25.6 M parameters (torchvision), fp32 activations ≈ 75 MB/sample. */
const RESNET50_MACS_PER_PARAMETER = 4.11e9 / 25.6e6;
const RESNET50_PARAMETERS = 25.6e6;
const RESNET50_ACTIVATION_BYTES = 75e6;

/**
 * Wide-ResNet of a given size (Zagoruyko & Komodakis; the sizes Alpa and Crius use), 224×224 inputs.
 * Widening multiplies parameters and MACs alike (both grow with channels²), so FLOPs follow ResNet-50's
 * MACs-per-parameter ratio (WRN-50-2: 11.4 GMACs / 68.9 M, the same ratio within 3 %); activations grow
 * with channels, i.e. with √(parameters). The boundary between two stages carries one feature map.
 */
export const wideResnet = (parameters: number): DerivedSize => {
  const widen = Math.sqrt(parameters / RESNET50_PARAMETERS);
  return {
    parameters,
    flopsPerSample: 6 * RESNET50_MACS_PER_PARAMETER * parameters,
    activationBytesPerSample: RESNET50_ACTIVATION_BYTES * widen,
    // ResNet-50's largest inter-block feature map is 256×56×56 fp32 values (3.2 MB); it widens with the net.
    boundaryActivationBytesPerSample: 256 * 56 * 56 * 4 * widen,
  };
};
