// Where an adapter reports the platform's own groups (Slack user groups, Discord roles), so that
// knowledge access follows them (ARCHITECTURE.md, "Knowledge (Neo4j)"). Ids are the platform's:
// the workspace (Slack team, Discord guild), the group (user group `S…`, role id) and users.
import type { Platform } from './thread-ref.ts';

export interface PlatformGroupSink {
  /** Every group of a workspace with its members, replacing all that was known for it. */
  replaceWorkspace(
    platform: Platform,
    workspace: string,
    groups: ReadonlyMap<string, readonly string[]>,
  ): void;
  /** One group's complete member list (a group created, changed or emptied). */
  setGroupMembers(
    platform: Platform,
    workspace: string,
    groupId: string,
    members: readonly string[],
  ): void;
  /** One member's complete group list (a member's roles changed, or the member left: `[]`). */
  setMemberGroups(
    platform: Platform,
    workspace: string,
    userId: string,
    groupIds: readonly string[],
  ): void;
}
