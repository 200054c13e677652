// Which workspaces' user groups are kept in sync (knowledge access): each one seen in an event, or
// the token's own, read now and then on the schedule; Slack's subteam events update them between.
import type { App } from '@slack/bolt';
import type { Config } from '../../src/config/schema.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import { slackErrorCode } from './slack-errors.ts';
import type { SlackEnvelope } from './slack-events.ts';
import { SlackGroupSync, type SubteamEvent } from './slack-groups.ts';
import type { SlackCredentialSource } from './slack-installations.ts';
import { slackProjectOf } from './slack-source.ts';

export class SlackGroupWatch {
  private readonly d: { config: Config; log: Logger };
  private readonly groupSync: SlackGroupSync | undefined;
  /** Workspaces whose user groups are synced on the schedule (seen in events, or the token's). */
  private readonly groupWorkspaces = new Set<string>();
  private groupTimer: NodeJS.Timeout | undefined;

  constructor(d: {
    app: App;
    config: Config;
    log: Logger;
    credentials: SlackCredentialSource;
    /** Where user group memberships go; absent: they are not synced. */
    groups?: PlatformGroupSink | undefined;
  }) {
    this.d = d;
    const { config } = d;
    if (d.groups && config.knowledge.groupSync.enabled) {
      const credentials = d.credentials;
      this.groupSync = new SlackGroupSync({
        client: d.app.client,
        sink: d.groups,
        tokenFor: async (projectId) => (await credentials.forProject(projectId))?.token,
        log: d.log.child({ component: 'slack-groups' }),
      });
      for (const type of ['subteam_created', 'subteam_updated', 'subteam_members_changed']) {
        d.app.event(type, async ({ event, body }) => {
          const projectId = slackProjectOf(body as SlackEnvelope);
          if (!projectId) return;
          await this.groupSync
            ?.onSubteamEvent(projectId, event as unknown as SubteamEvent)
            .catch((err: unknown) => this.groupSyncFailed(projectId, err));
        });
      }
    }
  }

  /** Syncs a workspace's user groups now (in the background) and then on the schedule. */
  watchGroups(projectId: string): void {
    const sync = this.groupSync;
    if (!sync || this.groupWorkspaces.has(projectId)) return;
    this.groupWorkspaces.add(projectId);
    void this.syncGroups(projectId);
    if (!this.groupTimer) {
      const every = this.d.config.knowledge.groupSync.intervalMinutes * 60_000;
      this.groupTimer = setInterval(() => {
        for (const p of this.groupWorkspaces) void this.syncGroups(p);
      }, every);
      this.groupTimer.unref();
    }
  }

  /** One workspace's user groups, read again; a failure is logged and the next run retries. */
  syncGroups(projectId: string): Promise<void> {
    const sync = this.groupSync;
    if (!sync) return Promise.resolve();
    const started = performance.now();
    return sync.syncWorkspace(projectId).then(
      (groups) =>
        this.d.log.info(
          { team: projectId, groups, ms: Math.round(performance.now() - started) },
          'slack user groups synced',
        ),
      (err: unknown) => this.groupSyncFailed(projectId, err),
    );
  }

  private groupSyncFailed(projectId: string, err: unknown): void {
    const code = slackErrorCode(err);
    this.d.log.warn(
      { team: projectId, code, err: code ? undefined : err },
      code === 'missing_scope'
        ? 'cannot read Slack user groups: the app needs the usergroups:read scope (adapters/slack/manifest.yaml); reinstall it'
        : 'slack user group sync failed; knowledge access keeps the last known groups until the next sync',
    );
  }

  stop(): void {
    clearInterval(this.groupTimer);
  }
}
