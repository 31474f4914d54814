/**
 * Reads a worker's output file from a byte offset, line by line, telling for each line the byte offset just after
 * it: the log shipper persists that offset once the line is in S3, so a restarted agent re-reads exactly what was
 * not shipped. A line longer than the cap is cut into pieces (a progress bar or binary output never grows a chunk
 * without bound); a trailing partial line waits for its newline unless the writer has exited.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const NEWLINE = 0x0a;
export const MAX_LINE_BYTES = 16 * 1024;
/** Bytes read per call at most, so one tick never stalls on a huge backlog. */
const MAX_READ_BYTES = 1024 * 1024;

export interface ReadLine {
  text: string;
  /** Byte offset in the file just after this line (and its newline). */
  end: number;
}

export class LineReader {
  private readAt: number;

  constructor(
    private readonly path: string,
    /** Where the first unread line starts. */
    offset: number,
  ) {
    this.readAt = offset;
  }

  /** Lines from the offset up to the end of the file (or up to the read cap); `final` also returns a partial last line. */
  read(final: boolean): ReadLine[] {
    const { data, end } = this.readFrom(this.readAt);
    if (data.length === 0) return [];
    // A partial last line is complete only at the end of the file, not where the read cap cut it.
    const last = final && end;
    const lines: ReadLine[] = [];
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(NEWLINE, start);
      const stop = newline === -1 ? data.length : newline;
      if (stop - start > MAX_LINE_BYTES) {
        const cut = cutAtCharBoundary(data, start, start + MAX_LINE_BYTES);
        lines.push({ text: data.toString('utf8', start, cut), end: this.readAt + cut });
        start = cut;
        continue;
      }
      if (newline === -1 && !last) break;
      lines.push({
        text: data.toString('utf8', start, stop),
        end: this.readAt + Math.min(stop + 1, data.length),
      });
      start = stop + 1;
    }
    const consumed = lines.length > 0 ? lines.at(-1)!.end : this.readAt;
    this.readAt = consumed;
    return lines;
  }

  /** Up to the read cap from `offset`; `end`: the read reached the end of the file. */
  private readFrom(offset: number): { data: Buffer; end: boolean } {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return { data: Buffer.alloc(0), end: true }; // not created yet, or already deleted
    }
    try {
      const buffer = Buffer.allocUnsafe(MAX_READ_BYTES);
      let length = 0;
      while (length < MAX_READ_BYTES) {
        const bytes = readSync(fd, buffer, length, MAX_READ_BYTES - length, offset + length);
        if (bytes === 0) return { data: buffer.subarray(0, length), end: true };
        length += bytes;
      }
      return { data: buffer.subarray(0, length), end: false };
    } finally {
      closeSync(fd);
    }
  }
}

/** The last position at or before `limit` that does not split a UTF-8 character. */
function cutAtCharBoundary(data: Buffer, start: number, limit: number): number {
  let cut = limit;
  while (cut > start + 1 && (data[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}
