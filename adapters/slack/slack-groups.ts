// Slack user groups as knowledge groups: `usergroups.list` and `usergroups.users.list` for a whole
// workspace (at start and on a schedule), one group again on `subteam_created`, `subteam_updated`
// and `subteam_members_changed`. Members are re-read rather than patched from an event's
// added/removed lists, so a missed or reordered event cannot leave a stale membership.
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';

export interface SlackGroupSyncDeps {
  client: WebClient;
  sink: PlatformGroupSink;
  /** The bot token of a workspace (`T…` or `E….T…`), or undefined when it is not installed. */
  tokenFor(projectId: string): Promise<string | undefined>;
  log: Logger;
}

/** The fields of the subteam events this reads. */
export interface SubteamEvent {
  type: 'subteam_created' | 'subteam_updated' | 'subteam_members_changed';
  subteam_id?: string;
  subteam?: { id?: string; date_delete?: number };
}

export class SlackGroupSync {
  readonly #d: SlackGroupSyncDeps;

  constructor(d: SlackGroupSyncDeps) {
    this.#d = d;
  }

  /** Every enabled user group of the workspace with its members. */
  async syncWorkspace(projectId: string): Promise<number> {
    const token = await this.#d.tokenFor(projectId);
    if (!token) return 0;
    const list = await this.#d.client.usergroups.list({ token, include_disabled: false });
    const groups = new Map<string, readonly string[]>();
    for (const g of list.usergroups ?? []) {
      if (!g.id || (g.date_delete ?? 0) > 0) continue;
      groups.set(g.id, await this.#members(token, g.id));
    }
    this.#d.sink.replaceWorkspace('slack', projectId, groups);
    return groups.size;
  }

  /** A subteam event: that one group's members read again (none once it is disabled). */
  async onSubteamEvent(projectId: string, event: SubteamEvent): Promise<void> {
    const id = event.subteam_id ?? event.subteam?.id;
    if (!id) return;
    const token = await this.#d.tokenFor(projectId);
    if (!token) return;
    const disabled = (event.subteam?.date_delete ?? 0) > 0;
    const members = disabled ? [] : await this.#members(token, id);
    this.#d.sink.setGroupMembers('slack', projectId, id, members);
    this.#d.log.info(
      { team: projectId, usergroup: id, members: members.length, event: event.type },
      'slack user group synced',
    );
  }

  async #members(token: string, usergroup: string): Promise<string[]> {
    const r = await this.#d.client.usergroups.users.list({ token, usergroup });
    return r.users ?? [];
  }
}
