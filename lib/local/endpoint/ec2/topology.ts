import type { TopologyLayout } from './types.ts';

export const DEFAULT_TOPOLOGY_LAYOUT: TopologyLayout = {
  instancesPerBottomNode: 4,
  bottomNodesPerMiddleNode: 4,
  middleNodesPerTopNode: 4,
};

/**
 * Synthetic network nodes for the instance launched `ordinal`-th, top layer first.
 *
 * Consecutive launches fill one bottom node before the next, so a burst of launches lands
 * close together the way a placement group would; ids encode layer and index so they are
 * stable across runs and readable in logs (`nn-3000000000000002` = bottom node #2).
 */
export function networkNodesFor(ordinal: number, layout: TopologyLayout): [string, string, string] {
  if (!Number.isInteger(ordinal) || ordinal < 0) {
    throw new RangeError(`instance ordinal must be a non-negative integer, got ${ordinal}`);
  }
  const bottom = Math.floor(ordinal / layout.instancesPerBottomNode);
  const middle = Math.floor(bottom / layout.bottomNodesPerMiddleNode);
  const top = Math.floor(middle / layout.middleNodesPerTopNode);
  return [nodeId(1, top), nodeId(2, middle), nodeId(3, bottom)];
}

function nodeId(layer: 1 | 2 | 3, index: number): string {
  return `nn-${layer}${index.toString(16).padStart(16, '0')}`;
}

export function validateTopologyLayout(layout: TopologyLayout): TopologyLayout {
  for (const [key, value] of Object.entries(layout)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`topology.${key} must be a positive integer, got ${value}`);
    }
  }
  return layout;
}
