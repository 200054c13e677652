import type { StructuredToolInterface } from '@langchain/core/tools';
// The turn pipeline's vocabulary: what a turn is given, what it needs, and how it ended. Shared by
// admission, the summary turn, the answer turn and the runner that ties them together.
import type { ToolRegistry } from '../agent/tool-registry.ts';
import type { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { ContextManager } from '../memory/context-manager.ts';
import type { TurnOutcome } from '../model/handled.ts';
import type { IncomingMessage } from '../model/incoming.ts';
import type { ActionButton } from '../model/interaction.ts';
import type { Owner } from '../model/thread-ref.ts';
import type { PriorityClass } from '../scope/model-call.ts';
import type { TurnScope } from '../scope/scope.ts';
import type { SharedFairCounters } from '../store/fair-counters.ts';
import type { SessionHistory } from '../store/session-history.ts';
import type { HeldLock } from '../store/session-lock.ts';
import type { Store } from '../store/store.ts';
import type { AnswerAudience } from './audience.ts';
import type { BudgetGuard } from './budgets.ts';
import type { ChannelSettings } from './channel-settings.ts';
import type { FeedbackService } from './feedback.ts';
import type { ProjectEraser } from './project-eraser.ts';
import type { SessionState } from './session-state.ts';
import type { CaughtUp } from './thread-context.ts';
import type { ThreadOutput } from './thread-output.ts';

export type { TurnOutcome };

export interface TurnRunnerOptions {
  botName: string;
  maxConcurrentTurns: number;
  maxQueuedPerSession: number;
  maxToolRounds: number;
  maxReplyTokens: number;
  summaryMaxTokens: number;
  turnTimeoutMs: number;
  firstTokenTimeoutMs: number;
  historyTurnsInPrompt: number;
  /** Who gets the next free slot: `fair` (VTC over channels, then people) or `fifo`. Default fifo. */
  admission?: 'fair' | 'fifo' | undefined;
  /** Tokens charged to a turn as it starts, corrected at its end. */
  turnEstimateTokens?: number | undefined;
  /** A channel or person with no turn admitted this long is forgotten by fair admission. */
  forgetIdleMs?: number | undefined;
  /** A waiting turn's place is shown and updated at most this often; absent or 0: not shown. */
  queueNoticeMs?: number | undefined;
}

export interface TurnRunnerDeps {
  llm: ModelEndpoint;
  tools: ToolRegistry;
  /** The team's MCP tools, offered only in channels whose settings name their server. */
  mcp?: McpTools | undefined;
  memory: ContextManager;
  history: SessionHistory;
  state: SessionState;
  metrics: Metrics;
  log: Logger;
  now?: () => Date;
  /** What a turn should know about its owners' files: images in reach and a prompt section. */
  context?: (owners: readonly Owner[]) => Promise<TurnContext>;
  /** Records answered turns so people can vote on them; absent: answers carry no buttons. */
  feedback?: FeedbackService | undefined;
  /** Says whether the turn's project was erased while it ran (then its history is not kept). */
  erasures?: Pick<ProjectEraser, 'erasedSince'> | undefined;
  /** Token budgets (ARCHITECTURE.md, "Sharing the GPU"); absent: none. */
  budgets?: Pick<BudgetGuard, 'check'> | undefined;
  /** Where a question deleted while it waits is marked, so the worker holding it lets it go. */
  withdrawals?: Pick<Store, 'claim' | 'holder'> | undefined;
  /** Fair admission's counters shared with the other workers (split roles); absent: this process's. */
  fairCounters?: SharedFairCounters | undefined;
}

/** The MCP tools of some servers (src/agent/mcp/mcp-hub.ts). */
export interface McpTools {
  toolsFor(servers: readonly string[]): StructuredToolInterface[];
}

export interface TurnContext {
  images: string[];
  section?: string;
}

/** What the conversation hands a turn besides the message: the channel's settings, its context. */
export interface TurnInput {
  settings?: ChannelSettings | undefined;
  /** Reads the thread's unread messages; runs under the session lock, so turns read in order. */
  context?: (() => Promise<CaughtUp>) | undefined;
  /**
   * A follow-up in a thread already read: usually nothing new was posted since, so the model starts
   * at once and the read runs beside it; its output is held until the read says nothing is new
   * (else the turn starts again with the new messages).
   */
  speculate?: boolean | undefined;
  /** The asker's name when known before the thread is read (the read also tells it). */
  askerName?: string | undefined;
  /** Decides whether knowledge evidence keeps the answer where everyone reads it. */
  audience?: AnswerAudience | undefined;
  /** Asked before a team tool runs (approvals in the thread); absent: calls needing one do not run. */
  toolGate?: TurnScope['toolGate'];
  /** 👍 and 👎 for the recorded turn `turn` (the feedback flow's buttons); absent: none. */
  votes?: ((turn: string) => Promise<readonly ActionButton[]>) | undefined;
  /** The GPU class of its model calls (ARCHITECTURE.md, "Sharing the GPU"); absent: interactive. */
  priority?: PriorityClass | undefined;
}

/** A message past admission: its slot taken and its session locked. */
export interface Admitted {
  msg: IncomingMessage;
  out: ThreadOutput;
  key: string;
  log: Logger;
  lock: HeldLock;
  input: TurnInput;
}

/** The options and dependencies every stage of a turn reads. */
export interface TurnEnv {
  o: TurnRunnerOptions;
  d: TurnRunnerDeps;
}

export const NOTHING_NEW: CaughtUp = { quoted: [], commit: async () => undefined };
