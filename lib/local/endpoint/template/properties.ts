import { type ResolveContext, resolveValue, UnresolvableError } from './intrinsics.ts';

/**
 * Reads one resource's `Properties`, resolving intrinsics, and keeps track of what was used
 * so every property the local build does not apply ends up in a note instead of vanishing
 * silently. Optional properties that cannot be resolved locally are dropped with a note;
 * required ones fail with the logical id and property in the message.
 */
export class PropertyReader {
  private readonly used = new Set<string>();

  constructor(
    readonly logicalId: string,
    readonly type: string,
    private readonly properties: Record<string, unknown>,
    private readonly ctx: ResolveContext,
    private readonly notes: string[],
  ) {}

  private where(name: string): string {
    return `${this.logicalId} (${this.type}) property ${name}`;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.properties, name);
  }

  /** The property as written in the template, unresolved (for per-item resolution). */
  raw(name: string): unknown {
    this.used.add(name);
    return this.properties[name];
  }

  optional(name: string): unknown {
    this.used.add(name);
    if (!this.has(name)) return undefined;
    return this.resolveOrNote(this.properties[name], name);
  }

  /** Resolve a value that belongs to property `label`; undefined (with a note) if not resolvable. */
  resolveOrNote(value: unknown, label: string): unknown {
    try {
      return resolveValue(value, this.ctx);
    } catch (error) {
      if (!(error instanceof UnresolvableError)) throw error;
      this.note(`${this.where(label)} ignored: ${error.message}`);
      return undefined;
    }
  }

  required(name: string): unknown {
    this.used.add(name);
    if (!this.has(name)) throw new Error(`${this.where(name)} is required`);
    try {
      return resolveValue(this.properties[name], this.ctx);
    } catch (error) {
      if (error instanceof UnresolvableError) throw new Error(`${this.where(name)}: ${error.message}`);
      throw error;
    }
  }

  optionalString(name: string): string | undefined {
    const value = this.optional(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new Error(`${this.where(name)} must be a string, got ${JSON.stringify(value)}`);
    }
    return String(value);
  }

  /** Mark a property as deliberately not applied locally, saying why. */
  ignore(name: string, why: string): void {
    if (!this.has(name)) return;
    this.used.add(name);
    this.note(`${this.where(name)} ignored: ${why}`);
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** Note every property nobody read. */
  finish(): void {
    for (const name of Object.keys(this.properties)) {
      if (!this.used.has(name)) this.note(`${this.where(name)} ignored: not supported by the local endpoint`);
    }
  }
}
