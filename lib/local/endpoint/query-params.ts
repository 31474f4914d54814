/**
 * AWS query-protocol parameters (EC2 and friends) as a tree.
 *
 * The SDK flattens structures to dotted keys and lists to 1-based indices, e.g.
 * `TagSpecification.1.Tag.2.Key=Name`. We rebuild the tree once so handlers can ask for
 * `list('TagSpecification')` and `text('Key')` instead of string-matching keys.
 */
export class QueryNode {
  readonly children = new Map<string, QueryNode>();
  value: string | undefined;

  /** The child at a dotted path (`'LaunchTemplate.LaunchTemplateName'`), if present. */
  get(path: string): QueryNode | undefined {
    let node: QueryNode | undefined = this;
    for (const segment of path.split('.')) {
      node = node?.children.get(segment);
      if (!node) return undefined;
    }
    return node;
  }

  text(path: string): string | undefined {
    return this.get(path)?.value;
  }

  /** Integer at `path`; rejects non-integers with the parameter name in the message. */
  int(path: string): number | undefined {
    const raw = this.text(path);
    if (raw === undefined) return undefined;
    if (!/^-?\d+$/.test(raw)) {
      throw new QueryParamError(`Invalid value '${raw}' for ${path}: expected an integer`);
    }
    return Number(raw);
  }

  bool(path: string): boolean | undefined {
    const raw = this.text(path);
    if (raw === undefined) return undefined;
    if (raw !== 'true' && raw !== 'false') {
      throw new QueryParamError(`Invalid value '${raw}' for ${path}: expected true or false`);
    }
    return raw === 'true';
  }

  /** Members of the list `name.1`, `name.2`, … in index order. */
  list(name: string): QueryNode[] {
    const container = this.get(name);
    if (!container) return [];
    return [...container.children.entries()]
      .filter(([key]) => /^\d+$/.test(key))
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, node]) => node);
  }

  /** Values of a list of strings (`InstanceId.1=…&InstanceId.2=…`). */
  texts(name: string): string[] {
    return this.list(name).flatMap((node) => (node.value === undefined ? [] : [node.value]));
  }
}

export class QueryParamError extends Error {
  override readonly name = 'QueryParamError';
}

export function parseQueryParams(body: string): QueryNode {
  const root = new QueryNode();
  for (const [key, value] of new URLSearchParams(body)) {
    let node = root;
    for (const segment of key.split('.')) {
      let child = node.children.get(segment);
      if (!child) {
        child = new QueryNode();
        node.children.set(segment, child);
      }
      node = child;
    }
    node.value = value;
  }
  return root;
}
