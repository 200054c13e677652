// What the core is made of (composition hands these in): the turn runner, session state, files,
// settings, the optional services, and where flows keep their state between steps.
import type { AttachmentIndex } from '../attachments/index/index.ts';
import type { Ingestor } from '../attachments/ingest.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { Handoff } from '../model/incoming.ts';
import type { PlatformPort } from '../model/platform-port.ts';
import type { Store } from '../store/store.ts';
import type { EvidenceAccess } from './audience.ts';
import type { ChannelSettingsService } from './channel-settings.ts';
import type { FeedbackService } from './feedback.ts';
import type { ToolServerOverview } from './interactions/settings-flow.ts';
import type { GroupsOf } from './interactions/tool-approval-flow.ts';
import type { ProjectEraser } from './project-eraser.ts';
import type { SessionState } from './session-state.ts';
import type { ThreadContext } from './thread-context.ts';
import type { ToolApprovals } from './tool-approvals.ts';
import type { TurnRunner } from './turn-runner.ts';
import type { UsageAccounting } from './usage-accounting.ts';

export interface ConversationOptions {
  botName: string;
  runner: TurnRunner;
  state: SessionState;
  metrics: Metrics;
  log: Logger;
  ingestor?: Ingestor | undefined;
  index?: AttachmentIndex | undefined;
  settings: ChannelSettingsService;
  /** Absent: the bot reads no thread (it sees only the messages that address it). */
  threadContext?: ThreadContext | undefined;
  /** How long an edit or deletion waits for a running turn of its thread. */
  lockWaitMs: number;
  /** Checks knowledge evidence against a channel's members (absent: no knowledge, or none to check). */
  evidenceAccess?: EvidenceAccess | undefined;
  /**
   * Split roles (ingress, gateway): a new, addressed message goes here, to the queue, instead of
   * being run in this process; a worker runs it with `queued.run`.
   */
  handoff?: Handoff | undefined;
  /**
   * With `handoff`: how long a delivery's claim holds until its message is queued (then the full
   * window). Shorter than a gateway takeover, so a resumed session's replay finds a message whose
   * process died before queuing it unclaimed (ARCHITECTURE.md, "Scaling out").
   */
  claimPendingMs?: number | undefined;
  /**
   * False where this process does not receive every message (a worker gets only queued ones): the
   * hint that lets a follow-up start beside its thread read needs to have seen them all.
   */
  seesEveryMessage?: boolean | undefined;
  /** Wraps every attached port (a worker records what each job posted, for a durable turn). */
  wrapPort?: ((port: PlatformPort) => PlatformPort) | undefined;
  /** Votes on answers; absent: votes are refused as unreadable. */
  feedback?: FeedbackService | undefined;
  /** Model usage for the usage command (ARCHITECTURE.md, "Sharing the GPU"); absent: refused. */
  usage?: UsageAccounting | undefined;
  /** Erases a project's stored data for its admins; absent: erasing is refused. */
  eraser?: ProjectEraser | undefined;
  /** Approvals of team-tool calls (MCP); absent: a call that needs one does not run. */
  approvals?: ToolApprovals | undefined;
  /** A declared MCP server's tools, shown to the admin who switches it on; absent: no MCP. */
  toolServers?: ToolServerOverview | undefined;
  /** A person's groups for `mcp.approvers` (knowledge ACL principals); absent: ids only. */
  groupsOf?: GroupsOf | undefined;
  /** Flows between their steps: kept in `store`; references signed with keys from `signingKeys`. */
  interactions: {
    store: Pick<Store, 'kv' | 'claim' | 'holder'>;
    /** THREADMIND_ENCRYPTION_KEY's keys, parsed; absent: a random key kept in the store. */
    signingKeys?: readonly Buffer[] | undefined;
    /** How long a confirmation waits for its answer. */
    ttlMs: number;
  };
}
