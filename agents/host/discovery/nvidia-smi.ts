/**
 * GPU discovery through `nvidia-smi`. The query is machine-readable CSV without units:
 *   index, uuid, name, memory.total [MiB], utilization.gpu [%], memory.used [MiB]
 * Fields the driver cannot provide read `[N/A]` (or `[Not Supported]` on older drivers).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import type { GpuDiscovery, GpuSample } from './gpus.ts';

export const NVIDIA_SMI_ARGS = [
  '--query-gpu=index,uuid,name,memory.total,utilization.gpu,memory.used',
  '--format=csv,noheader,nounits',
];

const UNAVAILABLE = /^\[(N\/A|Not Supported|Unknown Error|Insufficient Permissions)\]$/i;

export class NvidiaSmiParseError extends Error {}

/** Parses the CSV output; `source` names the output in error messages (a file name or the command). */
export function parseNvidiaSmiCsv(text: string, source = 'nvidia-smi'): GpuSample[] {
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, { trim: true, skip_empty_lines: true, relax_column_count: true, info: true });
  } catch (error) {
    throw new NvidiaSmiParseError(`${source}: not CSV: ${(error as Error).message}`);
  }
  return rows.map(({ record: row, info }) => {
    const where = `${source} line ${info.lines}`;
    if (row.length !== 6) throw new NvidiaSmiParseError(`${where}: expected 6 fields, got ${row.length}`);
    const [index, uuid, name, memoryTotal, utilization, memoryUsed] = row as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (!/^\d+$/.test(index)) throw new NvidiaSmiParseError(`${where}: index: "${index}" is not a GPU index`);
    if (!uuid.startsWith('GPU-') && !uuid.startsWith('MIG-')) {
      throw new NvidiaSmiParseError(`${where}: uuid: "${uuid}" is not a GPU UUID`);
    }
    if (name === '' || UNAVAILABLE.test(name)) throw new NvidiaSmiParseError(`${where}: name: missing`);
    return {
      index: Number(index),
      uuid,
      name,
      memoryTotalMiB: optionalNumber(memoryTotal, 'memory.total', where),
      utilization: optionalNumber(utilization, 'utilization.gpu', where),
      memoryUsedMiB: optionalNumber(memoryUsed, 'memory.used', where),
    };
  });
}

function optionalNumber(field: string, name: string, where: string): number | null {
  if (field === '' || UNAVAILABLE.test(field)) return null;
  const value = Number(field);
  if (!Number.isFinite(value) || value < 0)
    throw new NvidiaSmiParseError(`${where}: ${name}: "${field}" is not a number`);
  return value;
}

export type CommandRunner = (command: string, args: string[], timeoutMs: number) => Promise<string>;

const execFileAsync = promisify(execFile);
const runCommand: CommandRunner = async (command, args, timeoutMs) =>
  (await execFileAsync(command, args, { timeout: timeoutMs, encoding: 'utf8' })).stdout;

export class NvidiaSmiDiscovery implements GpuDiscovery {
  constructor(private readonly options: { command?: string; timeoutMs?: number; run?: CommandRunner } = {}) {}

  async sample(): Promise<GpuSample[]> {
    const command = this.options.command ?? 'nvidia-smi';
    const output = await (this.options.run ?? runCommand)(
      command,
      NVIDIA_SMI_ARGS,
      this.options.timeoutMs ?? 10_000,
    );
    return parseNvidiaSmiCsv(output, command);
  }
}
