// Slack user groups as knowledge groups: `usergroups.list` and `usergroups.users.list` for a whole
// workspace (at start and on a schedule), one group again on `subteam_created`, `subteam_updated`
// and `subteam_members_changed`. Members are re-read rather than patched from an event's
// added/removed lists, so a missed or reordered event cannot leave a stale membership. Which
// workspaces are kept in sync: each one seen in an event, or the token's own, read now and then on
// the schedule (src/core/group-sync-schedule.ts); the subteam events update them between.
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Config } from '../../src/config/schema.ts';
import { GroupSyncSchedule } from '../../src/core/group-sync-schedule.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import { slackErrorCode } from './slack-errors.ts';
import type { SlackEnvelope } from './slack-events.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { slackProjectOf } from './slack-source.ts';

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

export class SlackGroupWatch {
  /** Absent when user groups are not synced. */
  private readonly schedule: GroupSyncSchedule | undefined;

  constructor(d: {
    app: App;
    config: Config;
    log: Logger;
    credentials: SlackCredentialSource;
    /** Where user group memberships go; absent: they are not synced. */
    groups?: PlatformGroupSink | undefined;
  }) {
    const { config, credentials } = d;
    if (!d.groups || !config.knowledge.groupSync.enabled) return;
    const groupSync = new SlackGroupSync({
      client: d.app.client,
      sink: d.groups,
      tokenFor: async (projectId) => (await credentials.forProject(projectId))?.token,
      log: d.log.child({ component: 'slack-groups' }),
    });
    const schedule = new GroupSyncSchedule({
      sync: (projectId) => groupSync.syncWorkspace(projectId),
      intervalMinutes: config.knowledge.groupSync.intervalMinutes,
      log: d.log,
      words: { project: 'team', count: 'groups', synced: 'slack user groups synced' },
      failed(err) {
        const code = slackErrorCode(err);
        return {
          fields: { code, err: code ? undefined : err },
          message:
            code === 'missing_scope'
              ? 'cannot read Slack user groups: the app needs the usergroups:read scope (adapters/slack/manifest.yaml); reinstall it'
              : 'slack user group sync failed; knowledge access keeps the last known groups until the next sync',
        };
      },
    });
    this.schedule = schedule;
    for (const type of ['subteam_created', 'subteam_updated', 'subteam_members_changed']) {
      d.app.event(type, async ({ event, body }) => {
        const projectId = slackProjectOf(body as SlackEnvelope);
        if (!projectId) return;
        await groupSync
          .onSubteamEvent(projectId, event as unknown as SubteamEvent)
          .catch((err: unknown) => schedule.failed(projectId, err));
      });
    }
  }

  /** Syncs a workspace's user groups now (in the background) and then on the schedule. */
  watchGroups(projectId: string): void {
    this.schedule?.watch(projectId);
  }

  /** One workspace's user groups, read again; a failure is logged and the next run retries. */
  syncGroups(projectId: string): Promise<void> {
    return this.schedule?.syncLogged(projectId) ?? Promise.resolve();
  }

  stop(): void {
    this.schedule?.stop();
  }
}
