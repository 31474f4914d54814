import { z } from 'zod';
import { findModelProfile, type ModelFamily } from './models.ts';

/**
 * Models as layer chains (Crius §4.2, specs/crius.md §6): what Cell stage determination and the agile Cell
 * estimator need. Byte counts are decimal; the training dtype is fp16/bf16 (2 bytes per value).
 */

/** How a tensor-parallel split of a layer communicates, per micro-batch (forward + backward). */
export interface TensorParallelComm {
  /** Megatron-style dense layers all-reduce their output; expert-parallel MoE layers exchange tokens all-to-all. */
  readonly collective: 'all-reduce' | 'all-to-all';
  /** Collectives of the layer's output bytes per micro-batch, forward and backward together. */
  readonly count: number;
}

export interface Layer {
  readonly name: string;
  /** Training FLOPs per sample, forward + backward (3 × forward). */
  readonly flops: number;
  /** Bytes of the layer's weights in the training dtype: what a data-parallel gradient all-reduce moves. */
  readonly paramBytes: number;
  /** Activation bytes per sample the layer keeps for its backward pass when nothing is recomputed. */
  readonly activationBytes: number;
  /** Bytes per sample of the layer's output: what crosses a pipeline-stage boundary placed after it. */
  readonly outputBytes: number;
  readonly tensorParallel: TensorParallelComm;
}

export interface LayeredModel {
  /** A catalog model id (`bert-1.3b`) or a user profile's name. */
  readonly id: string;
  readonly family: ModelFamily;
  readonly layers: readonly Layer[];
  /** Global batch sizes the model is trained with (Crius Table 2 for its families). */
  readonly batchSizes: readonly number[];
  /**
   * Device bytes of training state per byte of weights: 8 for mixed-precision Adam (fp16 weights and
   * gradients, fp32 master weights and two moments: 16 bytes per 2-byte weight).
   */
  readonly stateBytesPerParamByte: number;
  /** Largest tensor-parallel degree the layers split into (attention heads, experts, channels). */
  readonly maxTensorParallel: number;
  readonly description: string;
  readonly source: string;
}

const BYTES = 2;
const MEGATRON_TP: TensorParallelComm = { collective: 'all-reduce', count: 4 };
const EXPERT_TP: TensorParallelComm = { collective: 'all-to-all', count: 4 };
/** Adam with fp16 weights and gradients and fp32 master copies and moments: 16 bytes per parameter. */
const ADAM_STATE = 8;

export const totalParamBytes = (model: LayeredModel): number =>
  model.layers.reduce((s, l) => s + l.paramBytes, 0);
export const totalFlops = (model: LayeredModel): number => model.layers.reduce((s, l) => s + l.flops, 0);
/** Parameters (count) of a layered model: weight bytes over the 2-byte training dtype. */
export const parameterCount = (model: LayeredModel): number => totalParamBytes(model) / BYTES;

// ---------------------------------------------------------------------------------------------
// Transformers (BERT/GPT style): embedding, L identical blocks, the language-model head.
// ---------------------------------------------------------------------------------------------

export interface TransformerShape {
  readonly layers: number;
  readonly hidden: number;
  readonly heads: number;
  readonly seqLen: number;
  readonly vocab: number;
}

/**
 * A dense block: 12h² parameters; 72·s·h²·(1 + s/6h) training FLOPs per sample (Narayanan et al. SC '21);
 * s·h·(34 + 5·a·s/h) activation bytes without recomputation (Korthikanti et al. 2022); output = s·h fp16 values.
 */
const denseBlock = (name: string, c: TransformerShape): Layer => {
  const { hidden: h, seqLen: s, heads: a } = c;
  return {
    name,
    flops: 72 * s * h * h * (1 + s / (6 * h)),
    paramBytes: 12 * h * h * BYTES,
    activationBytes: s * h * (34 + (5 * a * s) / h),
    outputBytes: s * h * BYTES,
    tensorParallel: MEGATRON_TP,
  };
};

/** The embedding table (V·h parameters; a lookup costs no FLOPs worth counting). */
const embedding = (c: TransformerShape): Layer => ({
  name: 'embedding',
  flops: 0,
  paramBytes: c.vocab * c.hidden * BYTES,
  activationBytes: c.seqLen * c.hidden * BYTES,
  outputBytes: c.seqLen * c.hidden * BYTES,
  tensorParallel: MEGATRON_TP,
});

/** The language-model head tied to the embedding: 6·s·h·V FLOPs per sample, logits kept for the loss. */
const lmHead = (c: TransformerShape): Layer => ({
  name: 'lm-head',
  flops: 6 * c.seqLen * c.hidden * c.vocab,
  paramBytes: 0,
  activationBytes: c.seqLen * c.vocab * BYTES * 2,
  outputBytes: 4,
  tensorParallel: MEGATRON_TP,
});

/** Embedding, `layers` dense blocks, head: sums to catalog/formulas.ts `denseTransformer`. */
export const transformerChain = (c: TransformerShape): Layer[] => [
  embedding(c),
  ...Array.from({ length: c.layers }, (_, i) => denseBlock(`block-${i + 1}`, c)),
  lmHead(c),
];

export interface MoeShape extends TransformerShape {
  readonly experts: number;
}

/**
 * GShard: every other block's FFN is a mixture of `experts` FFNs with top-2 routing. An MoE block holds
 * 4h² attention + 8·E·h² expert parameters and computes attention plus two experts (20h² active).
 * Tensor parallelism of an MoE block is expert parallelism: tokens travel all-to-all.
 */
export const moeChain = (c: MoeShape): Layer[] => {
  const { hidden: h, seqLen: s, heads: a, experts: e } = c;
  const blocks = Array.from({ length: c.layers }, (_, i): Layer => {
    if (i % 2 === 0) return denseBlock(`block-${i + 1}`, c);
    return {
      name: `moe-block-${i + 1}`,
      flops: 6 * s * 20 * h * h + 12 * s * s * h,
      paramBytes: (4 * h * h + 8 * e * h * h) * BYTES,
      activationBytes: s * h * (34 + (5 * a * s) / h) + 2 * s * h * BYTES,
      outputBytes: s * h * BYTES,
      tensorParallel: EXPERT_TP,
    };
  });
  return [embedding(c), ...blocks, lmHead(c)];
};

// ---------------------------------------------------------------------------------------------
// Wide-ResNet-50 (Zagoruyko & Komodakis): stem, 16 bottleneck blocks in 4 groups, classifier.
// ---------------------------------------------------------------------------------------------

const RESNET50_GROUPS = [
  { blocks: 3, width: 64, size: 56 },
  { blocks: 4, width: 128, size: 28 },
  { blocks: 6, width: 256, size: 14 },
  { blocks: 3, width: 512, size: 7 },
] as const;
const CLASSES = 1000;

/**
 * Layer chain of a Wide-ResNet-50 whose channels are multiplied by `widen` (224×224 input). A bottleneck
 * block of width C at spatial size S: 1×1 (in→C), 3×3 (C→C), 1×1 (C→4C), plus a 1×1 projection in its
 * group's first block; MACs = weights × output positions; FLOPs = 6 × MACs. Activations (fp16): each conv's
 * output, its batch-norm and ReLU outputs (3 values per conv output element).
 */
export const wideResnetChain = (widen: number): Layer[] => {
  const ch = (c: number): number => Math.max(1, Math.round(c * widen));
  const stemOut = ch(64);
  const layers: Layer[] = [
    {
      name: 'stem',
      flops: 6 * 3 * 49 * stemOut * 112 * 112,
      paramBytes: 3 * 49 * stemOut * BYTES,
      activationBytes: 3 * stemOut * 112 * 112 * BYTES,
      outputBytes: stemOut * 56 * 56 * BYTES,
      tensorParallel: MEGATRON_TP,
    },
  ];
  let inC = stemOut;
  RESNET50_GROUPS.forEach((g, gi) => {
    const c = ch(g.width);
    const out = 4 * c;
    const s2 = g.size * g.size;
    for (let b = 0; b < g.blocks; b++) {
      const projection = b === 0 ? inC * out : 0;
      const weights = inC * c + 9 * c * c + c * out + projection;
      layers.push({
        name: `group-${gi + 1}.block-${b + 1}`,
        flops: 6 * weights * s2,
        paramBytes: weights * BYTES,
        activationBytes: 3 * (c + c + out + (projection > 0 ? out : 0)) * s2 * BYTES,
        outputBytes: out * s2 * BYTES,
        tensorParallel: MEGATRON_TP,
      });
      inC = out;
    }
  });
  layers.push({
    name: 'classifier',
    flops: 6 * inC * CLASSES,
    paramBytes: inC * CLASSES * BYTES,
    activationBytes: (inC + CLASSES) * BYTES,
    outputBytes: 4,
    tensorParallel: MEGATRON_TP,
  });
  return layers;
};

/** The widening factor giving a Wide-ResNet-50 of `parameters` parameters (bisection; parameters grow with widen²). */
export const wideResnetWiden = (parameters: number): number => {
  const count = (w: number) => wideResnetChain(w).reduce((s, l) => s + l.paramBytes, 0) / BYTES;
  let lo = 0.25;
  let hi = 64;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (count(mid) < parameters) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
};

// ---------------------------------------------------------------------------------------------
// The built-in chains: Crius Table 2 (Wide-ResNet, BERT, GShard MoE) and GPT-style models.
// ---------------------------------------------------------------------------------------------

/** Crius Table 2: global batch sizes per family. */
export const CRIUS_BATCH_SIZES = {
  'wide-resnet': [256, 512, 1024],
  bert: [128, 256, 512],
  moe: [256, 512, 1024],
} as const;

const G = 1e9;
const ALPA_VOCAB = 51200;
const GPT2_VOCAB = 50257;
const TABLE2 = 'Crius Table 2 (sizes and global batch sizes)';

const wideResnets: LayeredModel[] = ([0.5, 1, 2, 4, 6.8] as const).map((billions) => ({
  id: `wide-resnet-${billions}b`,
  family: 'cnn',
  layers: wideResnetChain(wideResnetWiden(billions * G)),
  batchSizes: CRIUS_BATCH_SIZES['wide-resnet'],
  stateBytesPerParamByte: ADAM_STATE,
  maxTensorParallel: 64,
  description: `Wide-ResNet-50 with ${billions} B parameters, 224×224 images`,
  source: `${TABLE2}; block shapes of ResNet-50 (He et al. 2016) widened to the size`,
}));

const transformerModel = (
  id: string,
  shape: TransformerShape,
  batchSizes: readonly number[],
  description: string,
  source: string,
): LayeredModel => ({
  id,
  family: 'transformer',
  layers: transformerChain(shape),
  batchSizes,
  stateBytesPerParamByte: ADAM_STATE,
  maxTensorParallel: shape.heads,
  description,
  source,
});

const berts: LayeredModel[] = (
  [
    ['0.76', 24, 1536, 16],
    ['1.3', 24, 2048, 16],
    ['2.6', 32, 2560, 32],
    ['6.7', 32, 4096, 32],
  ] as const
).map(([billions, layers, hidden, heads]) =>
  transformerModel(
    `bert-${billions}b`,
    { layers, hidden, heads, seqLen: 1024, vocab: ALPA_VOCAB },
    CRIUS_BATCH_SIZES.bert,
    `BERT-style transformer, ${billions} B: ${layers} layers, hidden ${hidden}, sequence 1,024`,
    `${TABLE2}; Alpa benchmark configurations (Zheng et al. 2022)`,
  ),
);

const moes: LayeredModel[] = (
  [
    ['0.69', 16, 768, 16],
    ['1.3', 16, 1024, 16],
    ['2.4', 16, 1024, 32],
    ['10', 16, 1536, 64],
    ['27', 32, 2048, 48],
  ] as const
).map(([billions, layers, hidden, experts]) => ({
  id: `moe-${billions}b`,
  family: 'moe',
  layers: moeChain({ layers, hidden, heads: hidden / 64, seqLen: 1024, vocab: 32000, experts }),
  batchSizes: CRIUS_BATCH_SIZES.moe,
  stateBytesPerParamByte: ADAM_STATE,
  maxTensorParallel: experts,
  description: `GShard MoE ${billions} B: ${layers} layers, hidden ${hidden}, ${experts} experts every other layer`,
  source: `${TABLE2}; GShard (Lepikhin et al. 2020) block structure; shapes as catalog/models.ts`,
}));

const GPT_SOURCE = 'Brown et al. 2020, Table 2.1 configurations; Megatron-LM block formulas';
const gpts: LayeredModel[] = [
  transformerModel(
    'gpt2-medium',
    { layers: 24, hidden: 1024, heads: 16, seqLen: 1024, vocab: GPT2_VOCAB },
    [256, 512],
    'GPT-2 Medium (355 M), sequence 1,024',
    'Radford et al. 2019 configuration; Megatron-LM block formulas',
  ),
  transformerModel(
    'gpt3-medium',
    { layers: 24, hidden: 1024, heads: 16, seqLen: 2048, vocab: GPT2_VOCAB },
    [256, 512],
    'GPT-3 Medium (350 M), sequence 2,048',
    GPT_SOURCE,
  ),
  transformerModel(
    'gpt3-xl',
    { layers: 24, hidden: 2048, heads: 24, seqLen: 2048, vocab: GPT2_VOCAB },
    [256, 512],
    'GPT-3 XL (1.3 B), sequence 2,048',
    GPT_SOURCE,
  ),
  transformerModel(
    'gpt3-2.7b',
    { layers: 32, hidden: 2560, heads: 32, seqLen: 2048, vocab: GPT2_VOCAB },
    [256, 512],
    'GPT-3 2.7 B, sequence 2,048',
    GPT_SOURCE,
  ),
];

/** Every built-in layer chain. */
export const LAYERED_MODELS: readonly LayeredModel[] = [...wideResnets, ...berts, ...moes, ...gpts];

const LAYERED_INDEX: ReadonlyMap<string, LayeredModel> = new Map(LAYERED_MODELS.map((m) => [m.id, m]));

/** The layer chain of a catalog model (id or alias), or undefined for models known only as aggregates. */
export const findLayeredModel = (name: string): LayeredModel | undefined =>
  LAYERED_INDEX.get(findModelProfile(name)?.id ?? name) ?? LAYERED_INDEX.get(name);

// ---------------------------------------------------------------------------------------------
// User-supplied profiles (JSON), validated with zod.
// ---------------------------------------------------------------------------------------------

export const FAMILIES = [
  'cnn',
  'transformer',
  'moe',
  'rnn',
  'recommendation',
  'rl',
  'gan',
  'pointcloud',
  'speech',
  'detection',
] as const satisfies readonly ModelFamily[];

const nonNegative = z.number().finite().nonnegative();

export const layerSchema = z.strictObject({
  name: z.string().min(1).optional(),
  flops: nonNegative,
  paramBytes: nonNegative,
  activationBytes: nonNegative,
  outputBytes: nonNegative,
  tensorParallel: z
    .strictObject({
      collective: z.enum(['all-reduce', 'all-to-all']),
      count: z.number().int().nonnegative(),
    })
    .optional(),
});

const profileSchema = z
  .strictObject({
    id: z.string().trim().min(1),
    family: z.enum(FAMILIES),
    layers: z.array(layerSchema).min(1),
    batchSizes: z.array(z.number().int().positive()).min(1),
    stateBytesPerParamByte: z.number().finite().positive().optional(),
    maxTensorParallel: z.number().int().positive().optional(),
    description: z.string().optional(),
  })
  .refine((p) => p.layers.some((l) => l.flops > 0), {
    message: 'at least one layer must have flops > 0',
    path: ['layers'],
  });

/** A user profile as written in JSON (see docs/crius.md for the format). */
export type LayeredModelInput = z.input<typeof profileSchema>;

/**
 * Parses and validates a user-supplied layer-chain profile. Throws a RangeError naming the file, the field
 * path (`layers[3].flops`) and the rule for the first problems found.
 */
export const parseLayeredModel = (input: unknown, fileName = 'model profile'): LayeredModel => {
  const parsed = profileSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
    throw new RangeError(`${fileName}: invalid layer profile: ${problems.join('; ')}`);
  }
  const p = parsed.data;
  return {
    id: p.id,
    family: p.family,
    layers: p.layers.map((l, i) => ({
      name: l.name ?? `layer-${i + 1}`,
      flops: l.flops,
      paramBytes: l.paramBytes,
      activationBytes: l.activationBytes,
      outputBytes: l.outputBytes,
      tensorParallel: l.tensorParallel ?? MEGATRON_TP,
    })),
    batchSizes: p.batchSizes,
    stateBytesPerParamByte: p.stateBytesPerParamByte ?? ADAM_STATE,
    maxTensorParallel: p.maxTensorParallel ?? 64,
    description: p.description ?? `user profile ${p.id}`,
    source: fileName,
  };
};

/** Parses a JSON text (e.g. a file's contents) into a validated profile; JSON syntax errors name the file too. */
export const parseLayeredModelJson = (text: string, fileName: string): LayeredModel => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RangeError(`${fileName}: not valid JSON: ${(error as Error).message}`);
  }
  return parseLayeredModel(value, fileName);
};

const formatPath = (path: readonly PropertyKey[]): string =>
  path.length === 0
    ? '(profile)'
    : path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
