/**
 * Catalog-style model id from a name as traces write it: lower case, words joined by `-`, and a
 * hyphen between a name and its number dropped (`ResNet-50` → `resnet50`, `VGG_19` → `vgg19`,
 * `Bert-Large` → `bert-large`, `GPT3-XL` → `gpt3-xl`).
 */
export const normaliseModelName = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/[^a-z0-9.-]/g, '')
    .replace(/([a-z])-+(\d)/g, '$1$2')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');

/** Gavel/Shockwave job types: `ResNet-50 (batch size 64)`, or a bare model name such as `A3C`. */
const JOB_TYPE = /^(.*?)\s*\(batch size (\d+)\)$/;

export const parseJobType = (jobType: string): { model: string; batchSize?: number } | undefined => {
  const m = JOB_TYPE.exec(jobType.trim());
  const name = m === null ? jobType : (m[1] ?? '');
  const model = normaliseModelName(name);
  if (model === '') return undefined;
  const batchSize = m === null ? undefined : Number(m[2]);
  if (batchSize !== undefined && !(batchSize > 0)) return undefined;
  return batchSize === undefined ? { model } : { model, batchSize };
};
