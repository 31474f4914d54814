/**
 * Builds DynamoDB update and condition expressions with generated placeholders, so attribute names never
 * clash with reserved words and values are never spliced into expression text.
 */

export interface ItemChanges {
  /** Attributes to set (undefined values are ignored: use `remove`). */
  readonly set?: Readonly<Record<string, unknown>>;
  readonly remove?: readonly string[];
  /** Numbers added atomically (created at 0 when absent). */
  readonly add?: Readonly<Record<string, number>>;
}

export class Expressions {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly nameIds = new Map<string, string>();
  private valueCount = 0;

  /** Placeholder for an attribute name (one per distinct name). */
  name(attribute: string): string {
    let id = this.nameIds.get(attribute);
    if (!id) {
      id = `#n${this.nameIds.size}`;
      this.nameIds.set(attribute, id);
      this.names[id] = attribute;
    }
    return id;
  }

  /** Placeholder for a value. */
  value(value: unknown): string {
    const id = `:v${this.valueCount++}`;
    this.values[id] = value;
    return id;
  }

  eq(attribute: string, value: unknown): string {
    return `${this.name(attribute)} = ${this.value(value)}`;
  }

  /** The attribute equals `value`, or is absent when `value` is undefined. */
  eqOrAbsent(attribute: string, value: unknown): string {
    return value === undefined ? `attribute_not_exists(${this.name(attribute)})` : this.eq(attribute, value);
  }

  update(changes: ItemChanges): string {
    const sets = Object.entries(changes.set ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${this.name(k)} = ${this.value(v)}`);
    const adds = Object.entries(changes.add ?? {}).map(([k, v]) => `${this.name(k)} ${this.value(v)}`);
    const removes = (changes.remove ?? []).map((k) => this.name(k));
    const parts = [
      sets.length > 0 ? `SET ${sets.join(', ')}` : '',
      adds.length > 0 ? `ADD ${adds.join(', ')}` : '',
      removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
    ].filter((p) => p !== '');
    if (parts.length === 0) throw new Error('an update must change at least one attribute');
    return parts.join(' ');
  }

  /** Names and values for a command; DynamoDB rejects empty maps, so those are left out. */
  attributes(): {
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    return {
      ...(Object.keys(this.names).length > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}
