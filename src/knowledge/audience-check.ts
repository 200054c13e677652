// The audience check of an answer posted in a channel: which evidence chunks some member may not
// read. It uses the same groups, partitions, `allowedScopes` and ACL as retrieval, and caches graph
// memberships for a minute (a 5,000-member channel is checked on every knowledge answer there).
import { LRUCache } from 'lru-cache';
import { accessOfGroups, canSee, groupsOf } from './acl.ts';
import { aclFactsOf, graphGroupsOfMany } from './graph-queries.ts';
import { identitiesOf } from './principal-id.ts';
import type { ReadRunner } from './read-runner.ts';
import type { KnowledgeSettings } from './settings.ts';

/**
 * Graph group memberships the audience check reuses: a channel's members are checked on every
 * knowledge answer there, so a 5,000-member channel would otherwise read 5,000 memberships per
 * question. A membership change reaches the audience check within this time (the chat platforms'
 * member lists are cached as long); retrieval for the asker always reads the graph.
 */
const AUDIENCE_GROUPS_TTL_MS = 60_000;

const NONE: readonly string[] = [];

/** What the audience check derives from one member's memberships (see `#memberOf`). */
interface MemberGroups {
  /** The graph groups it was derived from (the cached array itself). */
  graph: readonly string[];
  /** The platform groups it was derived from, joined. */
  platform: string;
  groups: ReadonlySet<string>;
  key: string;
  identities: string[];
}

export class AudienceCheck {
  readonly #runner: ReadRunner;
  readonly #settings: KnowledgeSettings;
  readonly #platformGroups: ((principalId: string) => readonly string[]) | undefined;
  readonly #memberGroups = new LRUCache<string, string[]>({
    max: 200_000,
    ttl: AUDIENCE_GROUPS_TTL_MS,
  });
  readonly #members = new LRUCache<string, MemberGroups>({
    max: 200_000,
    ttl: AUDIENCE_GROUPS_TTL_MS,
  });

  constructor(
    runner: ReadRunner,
    settings: KnowledgeSettings,
    platformGroups?: (principalId: string) => readonly string[],
  ) {
    this.#runner = runner;
    this.#settings = settings;
    this.#platformGroups = platformGroups;
  }

  /**
   * The chunks among `chunkIds` that at least one of `principalIds` may not read (a chunk no longer
   * in the graph counts as unreadable): the audience check of an answer posted in a channel. Uses
   * the same groups, partitions, `allowedScopes` and ACL as retrieval. Principals with the same
   * groups share one check, so a 5,000-member channel costs a few distinct checks.
   */
  async unreadableBy(
    principalIds: readonly string[],
    chunkIds: readonly string[],
    traceId?: string,
  ): Promise<Set<string>> {
    const settings = this.#settings;
    const unique = [...new Set(chunkIds)];
    if (unique.length === 0 || principalIds.length === 0) return new Set();
    const cache = this.#memberGroups;
    const unknown = principalIds.filter((id) => !cache.has(id));
    const { groupsOf: groupsOf_, facts } = await this.#runner.read(
      async (q) => ({
        groupsOf: unknown.length > 0 ? await graphGroupsOfMany(q, unknown) : new Map(),
        facts: await aclFactsOf(q, unique),
      }),
      { timeoutMs: settings.phaseTimeoutMs, phase: 'audience', ...(traceId ? { traceId } : {}) },
    );
    for (const id of unknown) cache.set(id, groupsOf_.get(id) ?? []);
    // A principal's own ids matter only where these chunks' documents name them (a per-person
    // grant, deny or partition); everyone else with the same groups shares one check.
    const named = new Set<string>();
    for (const f of facts) {
      for (const list of [f.allowed_groups, f.denied, f.chunk_partition, f.document_partition]) {
        if (Array.isArray(list)) for (const x of list) if (typeof x === 'string') named.add(x);
      }
    }
    const byGroups = new Map<string, { principalId: string; groups: ReadonlySet<string> }>();
    for (const id of principalIds) {
      const m = this.#memberOf(id, groupsOf_.get(id) ?? cache.get(id) ?? NONE);
      const personal = m.identities.some((n) => named.has(n));
      const key = personal ? `${id}\u0001${m.key}` : m.key;
      byGroups.set(key, { principalId: personal ? id : '', groups: m.groups });
    }
    const factOf = new Map(facts.map((f) => [f.chunk_id, f]));
    const hidden = new Set<string>();
    for (const { principalId, groups } of byGroups.values()) {
      const access = accessOfGroups(principalId, groups, settings.allowedScopes, settings);
      for (const id of unique) {
        const f = factOf.get(id);
        const readable =
          f !== undefined &&
          canSee(access, {
            chunkPartition: f.chunk_partition,
            documentPartition: f.document_partition,
            allowedGroups: f.allowed_groups,
            denied: f.denied,
          });
        if (!readable) hidden.add(id);
      }
    }
    return hidden;
  }

  /**
   * A member's groups and their key, derived once per change of its graph or platform groups: the
   * audience check of a 5,000-member channel runs this for every member on every question.
   */
  #memberOf(id: string, graph: readonly string[]): MemberGroups {
    const platformList = this.#platformGroups?.(id) ?? NONE;
    const platform = platformList.length === 0 ? '' : platformList.join('\u0000');
    const known = this.#members.get(id);
    if (known && known.graph === graph && known.platform === platform) return known;
    const groups = groupsOf(id, [...graph, ...platformList], this.#settings);
    const m: MemberGroups = {
      graph,
      platform,
      groups,
      key: [...groups].sort().join('\u0000'),
      identities: identitiesOf(id),
    };
    this.#members.set(id, m);
    return m;
  }
}
