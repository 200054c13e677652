// Who may see what. A principal's groups come from config and from the graph
// (`(:Principal)-[:MEMBER_OF]->(:Group)`); each group searches the partition of its own name plus
// any partitions config maps to it; `allowed_scopes` can only narrow that set. A document (and its
// chunks) is searched in its `partition`, or else in the partition of each of its groups. A chunk is
// visible when one of its partitions and one of its document's are permitted AND the document's
// `allowed_groups` names one of the caller's groups and its `acl_deny` names none of them (deny
// wins): partitions bound the search space, the document ACL is still checked on every path and
// again before output. A principal's own id (and its deprecated form) counts as a group name, so a
// document may grant or deny one person; every principal of a workspace is in its `everyone` group.
import { everyoneOf, identitiesOf, legacyPrincipalId } from './principal-id.ts';

export interface Access {
  principalId: string;
  groups: string[];
  /** The principal's own ids, matched like groups by `allowed_groups` and `acl_deny`. */
  identities: string[];
  /** Partitions the candidate query may search (after `allowed_scopes`). */
  partitions: string[];
  /** Principal partitions `allowed_scopes` removed. */
  scopeDenied: number;
}

export interface AclConfig {
  principalGroups: Readonly<Record<string, readonly string[]>>;
  groupPartitions: Readonly<Record<string, readonly string[]>>;
}

/**
 * Every group of a principal: config (its id, or the deprecated id without the workspace), the
 * graph and platform memberships given (`other`), and its workspace's `everyone`.
 */
export function groupsOf(
  principalId: string,
  other: readonly string[],
  config: Pick<AclConfig, 'principalGroups'> & { everyoneGroups?: readonly string[] },
): Set<string> {
  const legacy = legacyPrincipalId(principalId);
  const platform = principalId.split(':')[0] ?? '';
  const everyone = config.everyoneGroups?.includes(platform) ? everyoneOf(principalId) : undefined;
  return new Set<string>([
    ...(config.principalGroups[principalId] ?? []),
    ...(legacy ? (config.principalGroups[legacy] ?? []) : []),
    ...other,
    ...(everyone ? [everyone] : []),
  ]);
}

export function resolveAccess(
  principalId: string,
  graphGroups: readonly string[],
  allowedScopes: readonly string[],
  config: AclConfig,
): Access {
  return accessOfGroups(
    principalId,
    groupsOf(principalId, graphGroups, config),
    allowedScopes,
    config,
  );
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
  const partitions = new Set([...own].filter((p) => everything || allowedScopes.includes(p)));
  const identities = principalId === '' ? [] : identitiesOf(principalId);
  // A document granted to one person is searched in that person's own partition; the surface's
  // scopes still bound it, but a personal partition is not one the surface meant to withhold.
  for (const id of identities) if (everything || allowedScopes.includes(id)) partitions.add(id);
  return {
    principalId,
    groups: [...groups].sort(),
    identities,
    partitions: [...partitions].sort(),
    scopeDenied: own.size - [...own].filter((p) => partitions.has(p)).length,
  };
}

/** The names a document's `allowed_groups` and `acl_deny` are matched against. */
export function namesOf(access: Access): string[] {
  return [...new Set([...access.groups, ...access.identities])];
}

export interface AclFacts {
  chunkPartition: unknown;
  documentPartition: unknown;
  allowedGroups: unknown;
  /** The document's `acl_deny` (absent on graphs written before deny rules). */
  denied?: unknown;
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
  const { chunkPartition, documentPartition, allowedGroups, denied } = facts;
  const names = namesOf(access);
  const deniedList = denied === undefined || denied === null ? [] : denied;
  return (
    permitted(access, chunkPartition) &&
    permitted(access, documentPartition) &&
    Array.isArray(allowedGroups) &&
    allowedGroups.some((g) => typeof g === 'string' && names.includes(g)) &&
    Array.isArray(deniedList) &&
    !deniedList.some((g) => typeof g !== 'string' || names.includes(g))
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

/**
 * Cypher predicate for "chunk `c` of document `d` is visible" with $partitions and $groups (the
 * caller's groups and own ids, `namesOf`): allowed by one, denied by none.
 */
export function visibleCypher(c: string, d: string): string {
  return (
    `(${inPartitionCypher(c)} AND ${inPartitionCypher(d)} ` +
    `AND any(g IN coalesce(${d}.allowed_groups, []) WHERE g IN $groups) ` +
    `AND none(x IN coalesce(${d}.acl_deny, []) WHERE x IN $groups))`
  );
}

export function aclParams(access: Access): { partitions: string[]; groups: string[] } {
  return { partitions: access.partitions, groups: namesOf(access) };
}
