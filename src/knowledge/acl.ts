// Who may see what. A principal's groups come from config and from the graph
// (`(:Principal)-[:MEMBER_OF]->(:Group)`); each group searches the partition of its own name plus
// any partitions config maps to it; `allowed_scopes` can only narrow that set. A document (and its
// chunks) is searched in its `partition`, or else in the partition of each of its groups. A chunk is
// visible when one of its partitions and one of its document's are permitted AND the document's
// `allowed_groups` names one of the caller's groups: partitions bound the search space, the
// document ACL is still checked on every path and again before output.

export interface Access {
  principalId: string;
  groups: string[];
  /** Partitions the candidate query may search (after `allowed_scopes`). */
  partitions: string[];
  /** Principal partitions `allowed_scopes` removed. */
  scopeDenied: number;
}

export interface AclConfig {
  principalGroups: Readonly<Record<string, readonly string[]>>;
  groupPartitions: Readonly<Record<string, readonly string[]>>;
}

export function resolveAccess(
  principalId: string,
  graphGroups: readonly string[],
  allowedScopes: readonly string[],
  config: AclConfig,
): Access {
  const groups = new Set<string>([...(config.principalGroups[principalId] ?? []), ...graphGroups]);
  return accessOfGroups(principalId, groups, allowedScopes, config);
}

/** Access from a principal's complete set of groups. */
export function accessOfGroups(
  principalId: string,
  groups: ReadonlySet<string>,
  allowedScopes: readonly string[],
  config: Pick<AclConfig, 'groupPartitions'>,
): Access {
  const own = new Set<string>();
  for (const g of groups) {
    own.add(g);
    for (const p of config.groupPartitions[g] ?? []) own.add(p);
  }
  const everything = allowedScopes.includes('*');
  const partitions = [...own].filter((p) => everything || allowedScopes.includes(p)).sort();
  return {
    principalId,
    groups: [...groups].sort(),
    partitions,
    scopeDenied: own.size - partitions.length,
  };
}

export interface AclFacts {
  chunkPartition: unknown;
  documentPartition: unknown;
  allowedGroups: unknown;
}

/** A node's partitions (a list; a lone string from graphs written before lists) permit the caller. */
function permitted(access: Access, partitions: unknown): boolean {
  const list = typeof partitions === 'string' ? [partitions] : partitions;
  return (
    Array.isArray(list) && list.some((p) => typeof p === 'string' && access.partitions.includes(p))
  );
}

/** The application-side twin of `visibleCypher`: used on expansion results and before output. */
export function canSee(access: Access, facts: AclFacts): boolean {
  const { chunkPartition, documentPartition, allowedGroups } = facts;
  return (
    permitted(access, chunkPartition) &&
    permitted(access, documentPartition) &&
    Array.isArray(allowedGroups) &&
    allowedGroups.some((g) => typeof g === 'string' && access.groups.includes(g))
  );
}

/** A node's partitions in Cypher: the list, or the single partition of graphs written before it. */
export function partitionsCypher(n: string): string {
  return `coalesce(${n}.acl_partitions, [${n}.acl_partition])`;
}

/** Cypher predicate for "node `n` is in a permitted partition" with $partitions. */
export function inPartitionCypher(n: string): string {
  return `any(p IN ${partitionsCypher(n)} WHERE p IN $partitions)`;
}

/** Cypher predicate for "chunk `c` of document `d` is visible" with $partitions and $groups. */
export function visibleCypher(c: string, d: string): string {
  return (
    `(${inPartitionCypher(c)} AND ${inPartitionCypher(d)} ` +
    `AND any(g IN coalesce(${d}.allowed_groups, []) WHERE g IN $groups))`
  );
}

export function aclParams(access: Access): { partitions: string[]; groups: string[] } {
  return { partitions: access.partitions, groups: access.groups };
}
