// Memberships of the platforms' own groups, as the adapters report them (Slack user groups, Discord
// roles): a principal `slack:T1:U1` in user group `S9` is in group `slack:T1:S9`. Group names carry
// the workspace and the platform's stable id, so a group renamed on the platform keeps its grants
// and no workspace can name another's group. Kept in this process's memory: each replica syncs on
// its schedule and on the change events it receives.
import { EventEmitter } from 'node:events';
import type { PlatformGroupSink } from '../model/platform-groups.ts';
import type { Platform } from '../model/thread-ref.ts';
import { parsePrincipalId } from './principal-id.ts';

/** The group name a document's `groups`/`deny` use for a platform group. */
export function platformGroupName(platform: string, workspace: string, groupId: string): string {
  return `${platform}:${workspace}:${groupId}`;
}

/** Adds `value` to the set under `key`, creating it. */
function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

interface Workspace {
  members: Map<string, Set<string>>;
  groups: Map<string, Set<string>>;
}

export class PlatformGroups implements PlatformGroupSink {
  readonly #workspaces = new Map<string, Workspace>();
  readonly #synced = new Set<string>();
  /** `changed` ({platform, workspace}) after every update: tests wait on it, never on time. */
  readonly events = new EventEmitter();

  /** Resolves once the workspace's groups were read in full at least once. */
  whenSynced(platform: Platform, workspace: string): Promise<void> {
    const key = `${platform}:${workspace}`;
    if (this.#synced.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      const on = (e: { platform: string; workspace: string; full: boolean }) => {
        if (e.full && `${e.platform}:${e.workspace}` === key) {
          this.events.off('changed', on);
          resolve();
        }
      };
      this.events.on('changed', on);
    });
  }

  #changed(platform: Platform, workspace: string, full = false): void {
    if (full) this.#synced.add(`${platform}:${workspace}`);
    this.events.emit('changed', { platform, workspace, full });
  }

  #workspace(platform: string, workspace: string): Workspace {
    const key = `${platform}:${workspace}`;
    let w = this.#workspaces.get(key);
    if (!w) {
      w = { members: new Map(), groups: new Map() };
      this.#workspaces.set(key, w);
    }
    return w;
  }

  replaceWorkspace(
    platform: Platform,
    workspace: string,
    groups: ReadonlyMap<string, readonly string[]>,
  ): void {
    const w: Workspace = { members: new Map(), groups: new Map() };
    for (const [group, users] of groups) {
      w.members.set(group, new Set(users));
      for (const u of users) addTo(w.groups, u, group);
    }
    this.#workspaces.set(`${platform}:${workspace}`, w);
    this.#changed(platform, workspace, true);
  }

  setGroupMembers(
    platform: Platform,
    workspace: string,
    groupId: string,
    members: readonly string[],
  ): void {
    const w = this.#workspace(platform, workspace);
    for (const u of w.members.get(groupId) ?? []) w.groups.get(u)?.delete(groupId);
    if (members.length === 0) w.members.delete(groupId);
    else w.members.set(groupId, new Set(members));
    for (const u of members) addTo(w.groups, u, groupId);
    this.#changed(platform, workspace);
  }

  setMemberGroups(
    platform: Platform,
    workspace: string,
    userId: string,
    groupIds: readonly string[],
  ): void {
    const w = this.#workspace(platform, workspace);
    for (const g of w.groups.get(userId) ?? []) w.members.get(g)?.delete(userId);
    if (groupIds.length === 0) w.groups.delete(userId);
    else w.groups.set(userId, new Set(groupIds));
    for (const g of groupIds) addTo(w.members, g, userId);
    this.#changed(platform, workspace);
  }

  /** The group names of a principal (`<platform>:<workspace>:<user>`), none for other ids. */
  groupsOf(principalId: string): string[] {
    const p = parsePrincipalId(principalId);
    if (!p) return [];
    const mine = this.#workspaces.get(`${p.platform}:${p.workspace}`)?.groups.get(p.user);
    return mine ? [...mine].map((g) => platformGroupName(p.platform, p.workspace, g)) : [];
  }
}
