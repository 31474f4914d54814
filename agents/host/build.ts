/**
 * Bundles the agent for EC2: one self-contained ES module (dist/agent.mjs) with the AWS SDK inside,
 * so an instance needs only Node 20. The simulated trainer and the systemd unit are copied beside it;
 * the S3 asset that user-data.sh downloads is this directory.
 *   node --import tsx agents/host/build.ts [--outdir dist]
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;

export async function buildAgent(outdir: string): Promise<string[]> {
  mkdirSync(outdir, { recursive: true });
  const bundle = join(outdir, 'agent.mjs');
  await build({
    entryPoints: [join(here, 'main.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // Some bundled CommonJS dependencies call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __tesseraCreateRequire } from 'node:module'; const require = __tesseraCreateRequire(import.meta.url);",
    },
  });
  const copies = ['sim-trainer.mjs', 'tessera-agent.service', 'user-data.sh'];
  for (const file of copies) copyFileSync(join(here, file), join(outdir, file));
  return [bundle, ...copies.map((file) => join(outdir, file))];
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(here, 'build.ts')) {
  const flag = process.argv.indexOf('--outdir');
  const outdir = resolve(flag >= 0 && process.argv[flag + 1] ? process.argv[flag + 1]! : 'dist');
  const files = await buildAgent(outdir);
  process.stdout.write(`${files.join('\n')}\n`);
}
