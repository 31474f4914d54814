import {
  type DerivedSize,
  denseTransformer,
  gshardMoe,
  recomputedTransformer,
  type TransformerConfig,
  wideResnet,
} from './formulas.ts';
import { modelKey, modelLookupKey, normaliseModelName } from './names.ts';

export type ModelFamily =
  | 'cnn'
  | 'transformer'
  | 'moe'
  | 'rnn'
  | 'recommendation'
  | 'rl'
  | 'gan'
  | 'pointcloud'
  | 'speech'
  | 'detection';

/**
 * Tiresias's skew: the largest tensor's share of the model. `high` = large, skewed tensors, so the job
 * is consolidated on one machine; `low` = it may spread.
 */
export type Skew = 'high' | 'low';

/** `dp` = pure data parallelism (a full replica per GPU); `hybrid` = data × tensor/pipeline (model-parallel). */
export type ParallelismKind = 'dp' | 'hybrid';

export interface ModelMemory {
  /** Training-state bytes per parameter: weights + gradients + optimizer (12 = fp32 SGD with momentum, 16 = Adam). */
  readonly bytesPerParameter: number;
  /** Activation bytes kept for the backward pass, per sample. */
  readonly activationBytesPerSample: number;
}

/** Aggregate description of a model: what the performance model needs to estimate any allocation. */
export interface ModelProfile {
  readonly id: string;
  readonly family: ModelFamily;
  readonly aliases: readonly string[];
  readonly parameters: number;
  /** Training FLOPs per sample, forward + backward. */
  readonly flopsPerSample: number;
  /** Global batch size the sources use; also the batch assumed when a job gives none. */
  readonly defaultBatchSize: number;
  readonly memory: ModelMemory;
  readonly skew: Skew;
  readonly kind: ParallelismKind;
  /** Bytes sent between pipeline stages per sample; hybrid models only. */
  readonly boundaryActivationBytesPerSample?: number;
  readonly description: string;
  /** Where the figures come from. */
  readonly source: string;
}

const M = 1e6;
const G = 1e9;

interface CnnSpec {
  id: string;
  aliases?: string[];
  family?: ModelFamily;
  parameters: number;
  /** Forward multiply-accumulates per sample (as torchvision/papers report "FLOPs"). */
  forwardMacs: number;
  activationMB: number;
  batch: number;
  skew: Skew;
  bytesPerParameter?: number;
  description: string;
  source: string;
}

/** Training FLOPs = 3 passes (forward, two backward) × 2 FLOPs per multiply-accumulate. */
const fromMacs = (s: CnnSpec): ModelProfile => ({
  id: s.id,
  family: s.family ?? 'cnn',
  aliases: s.aliases ?? [],
  parameters: s.parameters,
  flopsPerSample: 6 * s.forwardMacs,
  defaultBatchSize: s.batch,
  memory: { bytesPerParameter: s.bytesPerParameter ?? 12, activationBytesPerSample: s.activationMB * M },
  skew: s.skew,
  kind: 'dp',
  description: s.description,
  source: s.source,
});

interface DerivedSpec {
  id: string;
  aliases?: string[];
  family: ModelFamily;
  size: DerivedSize;
  batch: number;
  skew: Skew;
  kind: ParallelismKind;
  bytesPerParameter?: number;
  description: string;
  source: string;
}

const fromSize = (s: DerivedSpec): ModelProfile => ({
  id: s.id,
  family: s.family,
  aliases: s.aliases ?? [],
  parameters: s.size.parameters,
  flopsPerSample: s.size.flopsPerSample,
  defaultBatchSize: s.batch,
  memory: {
    bytesPerParameter: s.bytesPerParameter ?? 16,
    activationBytesPerSample: s.size.activationBytesPerSample,
  },
  skew: s.skew,
  kind: s.kind,
  ...(s.kind === 'hybrid'
    ? { boundaryActivationBytesPerSample: s.size.boundaryActivationBytesPerSample }
    : {}),
  description: s.description,
  source: s.source,
});

const TORCHVISION =
  'parameters and forward MACs: torchvision model documentation (224×224; 299×299 for Inception)';
const ACT_ESTIMATE = 'activation bytes: estimate for fp32 training';
const GPT2_VOCAB = 50257;
const BERT_VOCAB = 30522;
const ALPA_VOCAB = 51200;

const gpt = (
  layers: number,
  hidden: number,
  heads: number,
  seqLen: number,
  vocab = GPT2_VOCAB,
): TransformerConfig => ({
  layers,
  hidden,
  heads,
  seqLen,
  vocab,
});

// ---------------------------------------------------------------------------------------------
// Image classification CNNs: Tiresias's set, Dally Table I, Gavel, Pollux, Tesserae, EasyScale.
// Skew follows Tiresias (VGG and AlexNet: huge fully connected layers) and Dally Table I.
// ---------------------------------------------------------------------------------------------
const CNNS: ModelProfile[] = [
  fromMacs({
    id: 'alexnet',
    parameters: 61.1 * M,
    forwardMacs: 0.714 * G,
    activationMB: 15,
    batch: 128,
    skew: 'high',
    description: 'AlexNet, ImageNet (Tiresias; Dally Table I: high skew)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'vgg11',
    parameters: 132.9 * M,
    forwardMacs: 7.61 * G,
    activationMB: 80,
    batch: 64,
    skew: 'high',
    description: 'VGG-11, ImageNet (Tiresias; Dally Table I: high skew)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'vgg16',
    parameters: 138.4 * M,
    forwardMacs: 15.47 * G,
    activationMB: 120,
    batch: 64,
    skew: 'high',
    description: 'VGG-16, ImageNet (Tiresias)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'vgg19',
    parameters: 143.7 * M,
    forwardMacs: 19.63 * G,
    activationMB: 135,
    batch: 64,
    skew: 'high',
    description:
      'VGG-19, ImageNet (Tiresias; Tesserae batch 16–128; EasyScale Table 1; Blox co-location data)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'googlenet',
    parameters: 6.6 * M,
    forwardMacs: 1.5 * G,
    activationMB: 40,
    batch: 64,
    skew: 'low',
    description: 'GoogLeNet (Inception v1), ImageNet (Tiresias)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'inception3',
    aliases: ['inception-v3', 'inceptionv3'],
    parameters: 27.2 * M,
    forwardMacs: 5.71 * G,
    activationMB: 90,
    batch: 64,
    skew: 'low',
    description: 'Inception v3, ImageNet 299×299 (Tiresias)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'inception4',
    aliases: ['inception-v4', 'inceptionv4'],
    parameters: 42.7 * M,
    forwardMacs: 12.27 * G,
    activationMB: 160,
    batch: 32,
    skew: 'low',
    description: 'Inception v4, ImageNet 299×299 (Tiresias)',
    source:
      'Szegedy et al. 2017 (42.7 M parameters, 12.3 GMACs as reported by timm/ptflops); activation bytes: estimate',
  }),
  fromMacs({
    // Pollux's `cifar10` application and Gavel's ResNet-18 job type are this CIFAR-10 model.
    id: 'resnet18',
    aliases: ['cifar10', 'resnet18-cifar10'],
    parameters: 11.17 * M,
    forwardMacs: 0.556 * G,
    activationMB: 5,
    batch: 128,
    skew: 'low',
    description:
      'ResNet-18 on CIFAR-10 (32×32): Gavel’s ResNet-18 job type, Pollux’s cifar10 application, Dally Table I (low skew)',
    source:
      'CIFAR ResNet-18 (kuangliu/pytorch-cifar): 11.17 M parameters, 0.56 GMACs; activation bytes: estimate',
  }),
  fromMacs({
    id: 'resnet18-imagenet',
    parameters: 11.69 * M,
    forwardMacs: 1.82 * G,
    activationMB: 25,
    batch: 128,
    skew: 'low',
    description: 'ResNet-18 on ImageNet 224×224',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    // Pollux's `imagenet` application is ResNet-50.
    id: 'resnet50',
    aliases: ['imagenet', 'resnet50-imagenet'],
    parameters: 25.6 * M,
    forwardMacs: 4.11 * G,
    activationMB: 75,
    batch: 64,
    skew: 'low',
    description:
      'ResNet-50, ImageNet: Gavel, Pollux imagenet, Tiresias, Dally Table I (low skew), Tesserae (batch 32–256), EasyScale',
    source: `${TORCHVISION}; activation bytes: estimate chosen so batch 128 fits a 12 GB K80 as Gavel measured`,
  }),
  fromMacs({
    id: 'resnet101',
    parameters: 44.5 * M,
    forwardMacs: 7.83 * G,
    activationMB: 110,
    batch: 64,
    skew: 'low',
    description: 'ResNet-101, ImageNet (Tiresias)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'resnet152',
    parameters: 60.2 * M,
    forwardMacs: 11.56 * G,
    activationMB: 155,
    batch: 32,
    skew: 'low',
    description: 'ResNet-152, ImageNet (Tiresias)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'mobilenetv3',
    aliases: ['mobilenet-v3', 'mobilenetv3-large'],
    parameters: 5.48 * M,
    forwardMacs: 0.217 * G,
    activationMB: 35,
    batch: 128,
    skew: 'high',
    description: 'MobileNetV3-Large, ImageNet (Dally Table I: high skew, the most network-sensitive model)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'shufflenetv2',
    aliases: ['shufflenet-v2', 'shufflenetv2-1.0'],
    parameters: 2.28 * M,
    forwardMacs: 0.146 * G,
    activationMB: 20,
    batch: 128,
    // The final 1024×1000 classifier is ≈45 % of the parameters.
    skew: 'high',
    description: 'ShuffleNetV2 1.0×, ImageNet (EasyScale Table 1)',
    source: `${TORCHVISION}; ${ACT_ESTIMATE}`,
  }),
  fromMacs({
    id: 'swin-t',
    aliases: ['swintransformer', 'swin-transformer', 'swin-tiny'],
    family: 'transformer',
    parameters: 28.3 * M,
    forwardMacs: 4.5 * G,
    activationMB: 90,
    batch: 128,
    skew: 'low',
    bytesPerParameter: 16,
    description: 'Swin Transformer Tiny, ImageNet (EasyScale Table 1)',
    source: 'Liu et al. 2021, Table 1 (28 M parameters, 4.5 GFLOPs = MACs); activation bytes: estimate',
  }),
];

// ---------------------------------------------------------------------------------------------
// Other data-parallel workloads: Gavel's job types, Pollux's applications, Tesserae, EasyScale.
// ---------------------------------------------------------------------------------------------
const OTHER_DP: ModelProfile[] = [
  fromSize({
    // Gavel's Transformer: attention-is-all-you-need-pytorch on Multi30k (≈13 tokens per sentence); the
    // 6+6 encoder/decoder layers are approximated as 12 layers over 13 tokens.
    id: 'transformer',
    aliases: ['transformer-multi30k'],
    family: 'transformer',
    size: denseTransformer({ layers: 12, hidden: 512, heads: 8, seqLen: 13, vocab: 10000 }),
    batch: 64,
    skew: 'low',
    kind: 'dp',
    description:
      'Transformer (base) translation on Multi30k de-en (Gavel job type "Transformer"; batch = sentences)',
    source:
      'transformer formulas (catalog/formulas.ts) with the base configuration; sequence length is an estimate',
  }),
  {
    // pytorch/examples word_language_model defaults: 2-layer LSTM, 200 units, Wikitext-2 vocabulary 33,278, bptt 35.
    id: 'lstm-lm',
    family: 'rnn',
    aliases: ['lm', 'lstm', 'word-language-model'],
    parameters: 2 * 33278 * 200 + 2 * 4 * (200 + 200) * 200,
    // Per token forward: LSTM 2·(2·4·400·200) + decoder 2·200·33,278 FLOPs; × 35 tokens × 3 passes.
    flopsPerSample: 3 * 35 * (2 * 2 * 4 * 400 * 200 + 2 * 200 * 33278),
    defaultBatchSize: 20,
    memory: { bytesPerParameter: 12, activationBytesPerSample: 15 * M },
    // Embedding and decoder matrices are each ≈48 % of the parameters.
    skew: 'high',
    kind: 'dp',
    description: 'LSTM language model on Wikitext-2 (Gavel job type "LM"; batch = sequences of 35 tokens)',
    source:
      'derived from the pytorch/examples word_language_model default configuration; activation bytes: estimate',
  },
  {
    // NVIDIA DeepRecommender-style autoencoder over ML-20M's 26,744 items: 26,744-512-512-1024 and mirror.
    id: 'recommendation',
    family: 'recommendation',
    aliases: ['autoencoder', 'recoder'],
    parameters: 2 * (26744 * 512 + 512 * 512 + 512 * 1024),
    flopsPerSample: 6 * 2 * (26744 * 512 + 512 * 512 + 512 * 1024),
    defaultBatchSize: 2048,
    memory: { bytesPerParameter: 16, activationBytesPerSample: 0.5 * M },
    skew: 'high',
    kind: 'dp',
    description: 'Autoencoder recommendation model on MovieLens-20M (Gavel job type "Recommendation")',
    source:
      'layer sizes assumed from NVIDIA DeepRecommender; FLOPs treat the input as dense; activation bytes: estimate',
  },
  {
    // ikostrikov/pytorch-a3c on Pong: 4 conv layers (32 × 3×3, stride 2) on 42×42 + LSTM 256; one update =
    // a 20-frame rollout ≈ 5.7 MMACs per frame forward. CPU-bound in practice.
    id: 'a3c',
    family: 'rl',
    aliases: ['a3c-pong'],
    parameters: 0.9 * M,
    flopsPerSample: 20 * 6 * 5.7 * M,
    defaultBatchSize: 1,
    memory: { bytesPerParameter: 12, activationBytesPerSample: 5 * M },
    skew: 'low',
    kind: 'dp',
    description: 'A3C deep RL on Atari Pong (Gavel job type "A3C"; one sample = one 20-step rollout)',
    source: 'derived from the ikostrikov/pytorch-a3c architecture; estimates',
  },
  {
    // Per iteration: 6 generator passes (2 translations, 2 cycle reconstructions, 2 identity) of 56.8 GMACs and
    // 4 PatchGAN discriminator passes of ≈3 GMACs, × 3 for forward + backward.
    id: 'cyclegan',
    family: 'gan',
    aliases: ['cycle-gan'],
    parameters: 28.3 * M,
    flopsPerSample: 2 * 3 * (6 * 56.8 * G + 4 * 3 * G),
    defaultBatchSize: 1,
    memory: { bytesPerParameter: 16, activationBytesPerSample: 3 * G },
    skew: 'low',
    kind: 'dp',
    description: 'CycleGAN image-to-image translation, monet2photo 256×256 (Gavel job type "CycleGAN")',
    source: 'generator MACs from Li et al., GAN Compression (2020): 56.8 G; activation bytes: estimate',
  },
  fromMacs({
    // G 3.58 M + D 2.77 M parameters; G ≈0.43 GMACs and D ≈0.1 GMACs per 64×64 sample; D sees real and fake.
    id: 'dcgan',
    family: 'gan',
    parameters: 6.35 * M,
    forwardMacs: 0.43 * G + 2 * 0.1 * G,
    activationMB: 10,
    batch: 128,
    skew: 'low',
    bytesPerParameter: 16,
    description: 'DCGAN on LSUN 64×64 (Tesserae, batch 128–1024; Blox co-location data)',
    source: 'Radford et al. 2015 architecture; counts estimated from the layer shapes',
  }),
  fromMacs({
    id: 'pointnet',
    family: 'pointcloud',
    parameters: 3.5 * M,
    forwardMacs: 0.45 * G,
    activationMB: 25,
    batch: 32,
    skew: 'low',
    description:
      'PointNet classification on ShapeNet, 1,024 points (Tesserae, batch 32–256; Blox co-location data)',
    source: 'Qi et al. 2017 (3.5 M parameters, ≈0.45 G MACs per cloud); activation bytes: estimate',
  }),
  fromMacs({
    // Darknet reports 65.9 BFLOPs (2 per MAC) at 416×416.
    id: 'yolov3',
    family: 'detection',
    parameters: 61.9 * M,
    forwardMacs: 32.9 * G,
    activationMB: 500,
    batch: 16,
    skew: 'low',
    description: 'YOLOv3 object detection, PASCAL VOC 416×416 (Pollux yolov3; EasyScale Table 1)',
    source:
      'Redmon & Farhadi 2018 / darknet cfg (61.9 M parameters, 65.9 BFLOPs); activation bytes: estimate',
  }),
  {
    // deepspeech.pytorch default: 2 conv layers + 5 bidirectional LSTM layers of 1,024 units (≈87 M parameters);
    // ≈175 time steps after the stride-2 convolution for a typical 3.5 s utterance; 6 FLOPs per parameter per step.
    id: 'deepspeech2',
    family: 'speech',
    aliases: ['deepspeech'],
    parameters: 87 * M,
    flopsPerSample: 6 * 87 * M * 175,
    defaultBatchSize: 20,
    memory: { bytesPerParameter: 16, activationBytesPerSample: 100 * M },
    skew: 'low',
    kind: 'dp',
    description: 'DeepSpeech2 speech recognition (Pollux deepspeech2)',
    source:
      'derived from the deepspeech.pytorch default architecture; utterance length and activations are estimates',
  },
  {
    // NeuMF on MovieLens-1M: 6,040 users + 3,706 items × (8 GMF + 32 MLP) embedding dims, MLP 64-32-16-8.
    id: 'neumf',
    family: 'recommendation',
    aliases: ['ncf'],
    parameters: (6040 + 3706) * (8 + 32) + 64 * 32 + 32 * 16 + 16 * 8 + 16,
    flopsPerSample: 6 * (64 * 32 + 32 * 16 + 16 * 8 + 16 + 40),
    defaultBatchSize: 256,
    memory: { bytesPerParameter: 16, activationBytesPerSample: 2000 },
    skew: 'high',
    kind: 'dp',
    description: 'Neural collaborative filtering (NeuMF), MovieLens (Pollux ncf; EasyScale Table 1)',
    source: 'He et al. 2017 default configuration; counts derived from the layer shapes',
  },
  fromSize({
    // Pollux's `bert` application and EasyScale's Bert are SQuAD fine-tuning of BERT-base (sequence 384).
    id: 'bert-base',
    aliases: ['bert', 'bert-base-uncased'],
    family: 'transformer',
    size: denseTransformer(gpt(12, 768, 12, 384, BERT_VOCAB)),
    batch: 32,
    skew: 'low',
    kind: 'dp',
    description: 'BERT-base fine-tuning on SQuAD, sequence 384 (Pollux bert; EasyScale Table 1)',
    source: 'Devlin et al. 2019 configuration; transformer formulas (catalog/formulas.ts)',
  }),
  fromSize({
    id: 'electra-base',
    aliases: ['electra'],
    family: 'transformer',
    size: denseTransformer(gpt(12, 768, 12, 384, BERT_VOCAB)),
    batch: 32,
    skew: 'low',
    kind: 'dp',
    description: 'ELECTRA-base discriminator fine-tuning on SQuAD, sequence 384 (EasyScale Table 1)',
    source: 'Clark et al. 2020 (same shape as BERT-base); transformer formulas (catalog/formulas.ts)',
  }),
  fromSize({
    id: 'bert-large',
    aliases: ['bertlarge', 'bert-large-uncased'],
    family: 'transformer',
    size: denseTransformer(gpt(24, 1024, 16, 512, BERT_VOCAB)),
    batch: 32,
    skew: 'low',
    kind: 'dp',
    description:
      'BERT-large, sequence 512 (Dally Table I: low skew; Blox co-location data, global batch 256)',
    source: 'Devlin et al. 2019 configuration; transformer formulas (catalog/formulas.ts)',
  }),
];

// ---------------------------------------------------------------------------------------------
// Models trained with 3D parallelism: Tesserae's GPT-3 family (Megatron-LM), Blox's GPT2-Medium,
// and the Crius Table 2 families (aggregate profiles; a later issue adds their layer chains).
// ---------------------------------------------------------------------------------------------
const HYBRID: ModelProfile[] = [
  fromSize({
    id: 'gpt2-medium',
    family: 'transformer',
    size: recomputedTransformer(gpt(24, 1024, 16, 1024)),
    batch: 512,
    skew: 'low',
    kind: 'hybrid',
    description: 'GPT-2 Medium (355 M), sequence 1,024 (Blox co-location data, global batch 512)',
    source: 'Radford et al. 2019 configuration; transformer formulas (catalog/formulas.ts)',
  }),
  fromSize({
    id: 'gpt3-medium',
    family: 'transformer',
    size: recomputedTransformer(gpt(24, 1024, 16, 2048)),
    batch: 512,
    skew: 'low',
    kind: 'hybrid',
    description: 'GPT-3 Medium (350 M), sequence 2,048, Megatron-LM 3D parallel (Tesserae, batch 512)',
    source: 'Brown et al. 2020, Table 2.1 configuration; transformer formulas (catalog/formulas.ts)',
  }),
  fromSize({
    id: 'gpt3-xl',
    family: 'transformer',
    size: recomputedTransformer(gpt(24, 2048, 24, 2048)),
    batch: 512,
    skew: 'low',
    kind: 'hybrid',
    description: 'GPT-3 XL (1.3 B), sequence 2,048, Megatron-LM 3D parallel (Tesserae, batch 512)',
    source: 'Brown et al. 2020, Table 2.1 configuration; transformer formulas (catalog/formulas.ts)',
  }),
  fromSize({
    id: 'gpt3-2.7b',
    aliases: ['gpt3-3b'],
    family: 'transformer',
    size: recomputedTransformer(gpt(32, 2560, 32, 2048)),
    batch: 512,
    skew: 'low',
    kind: 'hybrid',
    description: 'GPT-3 2.7 B ("GPT3-3B" in Tesserae), sequence 2,048, Megatron-LM 3D parallel (batch 512)',
    source: 'Brown et al. 2020, Table 2.1 configuration; transformer formulas (catalog/formulas.ts)',
  }),
  ...(
    [
      [0.5, 512],
      [1, 512],
      [2, 512],
      [4, 512],
      [6.8, 512],
    ] as const
  ).map(([billions, batch]) =>
    fromSize({
      id: `wide-resnet-${billions}b`,
      aliases: [`wrn-${billions}b`, `wideresnet-${billions}b`],
      family: 'cnn',
      size: wideResnet(billions * G),
      batch,
      skew: 'low',
      kind: 'hybrid',
      bytesPerParameter: 16,
      description: `Wide-ResNet ${billions} B (Crius Table 2: global batch 256/512/1024)`,
      source:
        'Crius Table 2 sizes; FLOPs and activations scaled from ResNet-50 (catalog/formulas.ts wideResnet)',
    }),
  ),
  ...(
    [
      ['0.76', gpt(24, 1536, 16, 1024, ALPA_VOCAB)],
      ['1.3', gpt(24, 2048, 16, 1024, ALPA_VOCAB)],
      ['2.6', gpt(32, 2560, 32, 1024, ALPA_VOCAB)],
      ['6.7', gpt(32, 4096, 32, 1024, ALPA_VOCAB)],
    ] as const
  ).map(([billions, config]) =>
    fromSize({
      id: `bert-${billions}b`,
      family: 'transformer',
      size: recomputedTransformer(config),
      batch: 256,
      skew: 'low',
      kind: 'hybrid',
      description: `BERT-style transformer ${billions} B, sequence 1,024 (Crius Table 2: global batch 128/256/512)`,
      source:
        'Crius Table 2 sizes with the Alpa benchmark configurations (Zheng et al. 2022); transformer formulas',
    }),
  ),
  ...(
    [
      ['0.69', 16, 768, 16],
      ['1.3', 16, 1024, 16],
      ['2.4', 16, 1024, 32],
      ['10', 16, 1536, 64],
      ['27', 32, 2048, 48],
    ] as const
  ).map(([billions, layers, hidden, experts]) =>
    fromSize({
      id: `moe-${billions}b`,
      aliases: [`gshard-moe-${billions}b`],
      family: 'moe',
      size: gshardMoe({ layers, hidden, experts, seqLen: 1024, vocab: 32000 }),
      batch: 512,
      skew: 'low',
      kind: 'hybrid',
      description: `GShard MoE ${billions} B (${layers} layers, hidden ${hidden}, ${experts} experts; Crius Table 2)`,
      source:
        'Crius Table 2 sizes; layer/hidden/expert counts chosen to match them (catalog/formulas.ts gshardMoe)',
    }),
  ),
];

/** Every built-in model profile. */
export const MODEL_PROFILES: readonly ModelProfile[] = [...CNNS, ...OTHER_DP, ...HYBRID];

/** Maps lookup keys (see `modelKey`) of ids and aliases to profiles; throws on a collision. */
export const buildModelIndex = (profiles: readonly ModelProfile[]): ReadonlyMap<string, ModelProfile> => {
  const index = new Map<string, ModelProfile>();
  for (const profile of profiles) {
    for (const name of [profile.id, ...profile.aliases]) {
      const key = modelKey(name);
      const previous = index.get(key);
      if (previous && previous !== profile) {
        throw new Error(`model catalog: name "${name}" of ${profile.id} collides with ${previous.id}`);
      }
      index.set(key, profile);
    }
  }
  return index;
};

const MODEL_INDEX = buildModelIndex(MODEL_PROFILES);

export const knownModelIds = (): string[] => MODEL_PROFILES.map((p) => p.id);

/** The profile for an id, alias or source spelling (`ResNet-50`, `resnet_50`, `ResNet-50 (batch size 64)`), or undefined. */
export const findModelProfile = (name: string): ModelProfile | undefined => {
  const key = modelLookupKey(name);
  return key === '' ? undefined : MODEL_INDEX.get(key);
};

/** The profile for a name; throws a RangeError listing the known ids when there is none. */
export const getModelProfile = (name: string): ModelProfile => {
  const profile = findModelProfile(name);
  if (!profile) throw new RangeError(`unknown model "${name}"; known models: ${knownModelIds().join(', ')}`);
  return profile;
};

/** A source's model name resolved to a catalog id and the batch size it names, if any. */
export interface ResolvedModelName {
  readonly model: string;
  readonly batchSize?: number;
}

/** `ResNet-50 (batch size 64)` → `{ model: 'resnet50', batchSize: 64 }`; throws for unknown models. */
export const resolveModelName = (name: string): ResolvedModelName => {
  const { key, batchSize } = normaliseModelName(name);
  const profile = MODEL_INDEX.get(key);
  if (!profile) throw new RangeError(`unknown model "${name}"; known models: ${knownModelIds().join(', ')}`);
  return batchSize === undefined ? { model: profile.id } : { model: profile.id, batchSize };
};
