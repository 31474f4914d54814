/**
 * Users' `iterations` are estimates: real jobs stop early or run longer. With length noise of spread `f` (≥ 1), a job's
 * true length is its declared iterations × m, m log-uniform in [1/f, f] (f = 2: ×0.5–×2), drawn from the seed and the
 * job id alone — the same job gets the same m under every policy. Spread 1 (or less) is no noise.
 */
export const lengthMultiplier = (seed: number, jobId: string, spread: number): number => {
  if (!(spread > 1)) return 1;
  const u = mix(fnv1a(`length\u0000${seed}\u0000${jobId}`)) / 0x1_0000_0000;
  const span = Math.log(spread);
  return Math.exp(-span + 2 * span * u);
};

/** The true iterations of a job with `declared` iterations under length noise `spread`, at least 1. */
export const trueIterations = (seed: number, jobId: string, declared: number, spread: number): number =>
  Math.max(1, declared * lengthMultiplier(seed, jobId, spread));

/** 32-bit FNV-1a hash. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

/** MurmurHash3's finaliser: spreads FNV's similar hashes of similar ids over [0, 2³²) evenly. */
const mix = (h: number): number => {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
};
