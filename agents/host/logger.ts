/** Minimal structured logger: one JSON object per line on stderr (journald keeps it on EC2). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Level = 'info' | 'warn' | 'error';

export function jsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (level: Level, message: string, fields?: Record<string, unknown>) =>
    write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...fields })}\n`);
  return {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
