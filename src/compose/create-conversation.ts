// The core's conversation: the turn pipeline, channel settings, the thread's context, knowledge
// access and, with split roles, the hand-off to the queue.
import { claimPendingMs } from '../config/scale-config.ts';
import type { Config } from '../config/schema.ts';
import { ChannelSettingsService } from '../core/channel-settings.ts';
import { Conversation } from '../core/conversation.ts';
import { ThreadContext } from '../core/thread-context.ts';
import { groupsOf as aclGroupsOf } from '../knowledge/acl.ts';
import type { PlatformGroups } from '../knowledge/platform-groups.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { Store } from '../store/store.ts';
import type { Roles } from './create-roles.ts';
import type { Turns } from './create-turns.ts';

export function createConversation(
  config: Config,
  d: {
    store: Store;
    metrics: Metrics;
    log: Logger;
    turns: Turns;
    roles: Roles;
    groups: PlatformGroups | undefined;
  },
): Conversation {
  const { store, metrics, log, turns, roles, groups } = d;
  const { queue, worker } = roles;
  const { attachments } = turns;
  return new Conversation({
    botName: config.agent.name,
    runner: turns.runner,
    state: turns.state,
    metrics,
    log,
    ingestor: attachments.ingestor,
    index: attachments.index,
    settings: new ChannelSettingsService({
      store,
      defaults: config.channels.defaults,
      overrides: config.channels.overrides,
      models: () => turns.llm.models(),
    }),
    threadContext: config.threadContext.enabled
      ? new ThreadContext({
          store,
          ingestor: attachments.ingestor,
          maxMessages: config.threadContext.maxMessages,
          metrics,
          log,
        })
      : undefined,
    lockWaitMs: config.agent.turnTimeoutMs,
    evidenceAccess: turns.knowledge?.evidenceAccess,
    handoff:
      queue && roles.enqueues
        ? async (m, opened) => {
            await queue.enqueue(m, opened);
          }
        : undefined,
    // Half the gateway lease: a standby resumes no sooner than the lease lapses after its last
    // renewal (a third of the lease by default), so a dead holder's pending claims are gone by then.
    claimPendingMs: claimPendingMs(config),
    wrapPort: worker?.wrap,
    seesEveryMessage: roles.role === 'all',
    feedback: turns.feedback,
    usage: turns.usage,
    eraser: turns.eraser,
    approvals: turns.approvals,
    toolServers: turns.mcp ? (server) => turns.mcp?.overview(server) : undefined,
    // `mcp.approvers` names knowledge ACL principals: a person's id (`slack:T1:U1`), a group of
    // theirs from config (knowledge.principalGroups) or a platform group (user group, role).
    groupsOf: async (place, user) => {
      const id = `${place.ref.platform}:${place.ref.projectId}:${user}`;
      const platform = groups?.groupsOf(id) ?? [];
      return [id, ...aclGroupsOf(id, platform, config.knowledge)];
    },
    interactions: {
      store,
      signingKeys: config.secrets.encryptionKeys,
      ttlMs: config.interactions.confirmTtlSeconds * 1000,
    },
  });
}
