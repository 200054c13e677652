// Which workspaces' user groups are kept in sync (knowledge access): each one seen in an event, or
// the token's own, read now and then on the schedule (src/core/group-sync-schedule.ts); Slack's
// subteam events update them between.
import type { App } from '@slack/bolt';
import type { Config } from '../../src/config/schema.ts';
import { GroupSyncSchedule } from '../../src/core/group-sync-schedule.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import { slackErrorCode } from './slack-errors.ts';
import type { SlackEnvelope } from './slack-events.ts';
import { SlackGroupSync, type SubteamEvent } from './slack-groups.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { slackProjectOf } from './slack-source.ts';

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
