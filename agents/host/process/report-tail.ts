/**
 * Reads a worker's stdout file as it grows, line by line. Workers write to a file rather than a pipe
 * so they survive an agent restart (a pipe would break with the agent and kill them by SIGPIPE) and
 * the restarted agent can continue reading from the byte offset it persisted.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const NEWLINE = 0x0a;
const CHUNK = 64 * 1024;

export class ReportTail {
  private fd: number | null = null;
  private pending: Buffer = Buffer.alloc(0);
  private consumed: number;
  private readAt: number;

  constructor(
    private readonly path: string,
    offset = 0,
  ) {
    this.consumed = offset;
    this.readAt = offset;
  }

  /** Bytes of complete lines returned so far: where a restarted agent should resume reading. */
  get offset(): number {
    return this.consumed;
  }

  /** Complete lines appended since the last call (a trailing partial line waits for its newline). */
  readLines(): string[] {
    const fd = this.open();
    if (fd === null) return [];
    const chunks: Buffer[] = [this.pending];
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const bytes = readSync(fd, buffer, 0, CHUNK, this.readAt);
      if (bytes === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, bytes)));
      this.readAt += bytes;
    }
    const data = Buffer.concat(chunks);
    const lines: string[] = [];
    let start = 0;
    for (let index = data.indexOf(NEWLINE); index !== -1; index = data.indexOf(NEWLINE, start)) {
      lines.push(data.toString('utf8', start, index));
      start = index + 1;
    }
    this.pending = Buffer.from(data.subarray(start));
    this.consumed = this.readAt - this.pending.length;
    return lines;
  }

  /** The unterminated last line, once the writer has exited (a crash can cut a line short). */
  takeRemainder(): string | null {
    if (this.pending.length === 0) return null;
    const line = this.pending.toString('utf8');
    this.consumed += this.pending.length;
    this.pending = Buffer.alloc(0);
    return line;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): number | null {
    if (this.fd !== null) return this.fd;
    try {
      this.fd = openSync(this.path, 'r');
    } catch {
      return null; // not created yet
    }
    return this.fd;
  }
}
