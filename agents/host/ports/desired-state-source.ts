/**
 * Where the agent reads its desired state from. Sources return the raw document: validation is the
 * agent's job, so every source gets the same checks and the same rejection report.
 */
import { readFile } from 'node:fs/promises';

export interface DesiredStateSource {
  /** The raw desired-state document, or null when none has been written for this host yet. */
  read(): Promise<unknown>;
}

/** The document exists but is not JSON: reported like any other malformed desired state. */
export class DesiredStateFormatError extends Error {}

export class InMemoryDesiredStateSource implements DesiredStateSource {
  private document: unknown = null;

  set(document: unknown): void {
    this.document = structuredClone(document);
  }

  async read(): Promise<unknown> {
    return structuredClone(this.document);
  }
}

/** A JSON file (local mode): the local control plane rewrites it; a missing file means "nothing yet". */
export class FileDesiredStateSource implements DesiredStateSource {
  constructor(private readonly path: string) {}

  async read(): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new DesiredStateFormatError(`${this.path}: not valid JSON: ${(error as Error).message}`);
    }
  }
}
