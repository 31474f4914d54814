/**
 * When the log shipper cuts a chunk and how many lines go in it (pure): a chunk is cut when the lines waiting add
 * up to the size limit or when the oldest has waited the flush interval (an exited worker's lines go at once); a chunk
 * holds at most the size limit (but always at least one line, which the line reader caps).
 */
export interface ChunkLimits {
  /** Seconds the oldest unshipped line may wait. */
  flushSeconds: number;
  /** Bytes of line text per chunk at most. */
  maxBytes: number;
}

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { flushSeconds: 5, maxBytes: 256 * 1024 };

/** What a chunk costs per line beyond its text: the JSON keys, stream and time. */
export const LINE_OVERHEAD_BYTES = 48;

export const lineBytes = (text: string): number => Buffer.byteLength(text, 'utf8') + LINE_OVERHEAD_BYTES;

export interface WaitingLines {
  /** Bytes of each waiting line (lineBytes), oldest first. */
  sizes: readonly number[];
  /** Seconds when the oldest waiting line was read; null when none waits. */
  oldestAt: number | null;
}

/** Whether a running worker's waiting lines are due to ship (an exited worker's always are). */
export const shouldCut = (waiting: WaitingLines, now: number, limits: ChunkLimits): boolean => {
  if (waiting.sizes.length === 0 || waiting.oldestAt === null) return false;
  if (now - waiting.oldestAt >= limits.flushSeconds) return true;
  let total = 0;
  for (const size of waiting.sizes) {
    total += size;
    if (total >= limits.maxBytes) return true;
  }
  return false;
};

/** How many of the oldest waiting lines the next chunk takes. */
export const linesInChunk = (sizes: readonly number[], limits: ChunkLimits): number => {
  let total = 0;
  let count = 0;
  for (const size of sizes) {
    if (count > 0 && total + size > limits.maxBytes) break;
    total += size;
    count++;
  }
  return count;
};
