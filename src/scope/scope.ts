// The one home of AsyncLocalStorage (ARCHITECTURE.md, "One turn"). Tools learn whose files and knowledge to look
// at from here, never from their arguments. Only run() is used: a scope cannot outlive its turn.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ThreadRef } from '../model/thread-ref.ts';

/** What an attachment can belong to (ARCHITECTURE.md, "Vocabulary": the owners of a turn). */
export interface Owner {
  kind: 'session' | 'channel' | 'project';
  key: string;
}

/** A piece of knowledge evidence a tool is about to hand the model. */
export interface EvidenceRef {
  chunk_id: string;
  source_uri: string;
}

export interface TurnScope {
  readonly ref: ThreadRef;
  readonly principal: string;
  /** Owners whose attachments this turn may see: its session, its channel, its project. */
  readonly owners: readonly Owner[];
  /** Image attachments in reach of this turn, newest last (filled by the attachments feature). */
  readonly images: readonly string[];
  readonly traceId: string;
  /**
   * Told about knowledge evidence before the model sees it: the turn decides there whether its
   * answer can still go where everyone reads it (ARCHITECTURE.md, "Audience").
   */
  readonly onEvidence?: ((evidence: readonly EvidenceRef[]) => Promise<void>) | undefined;
  /**
   * Told before the model sees a result of a `private` tool server: the answer then goes to the
   * asker alone (ARCHITECTURE.md, "Audience").
   */
  readonly onPrivateResult?: (() => Promise<void>) | undefined;
  /**
   * Asked before a team tool runs: a grant lets it through; otherwise a person is asked in the
   * thread and the model reads `message` (ARCHITECTURE.md, "The team's tools"). Absent: a call
   * that needs approval does not run.
   */
  readonly toolGate?: ((call: ToolCallAsk) => Promise<ToolGateDecision>) | undefined;
}

/** One team-tool call as the approval gate sees it. */
export interface ToolCallAsk {
  server: string;
  tool: string;
  /** `server__tool`, the name the model used. */
  name: string;
  args: Record<string, unknown>;
  needsApproval: boolean;
}

export type ToolGateDecision = { run: true } | { run: false; message: string };

const storage = new AsyncLocalStorage<TurnScope>();

export function runInScope<T>(scope: TurnScope, fn: () => T): T {
  return storage.run(Object.freeze({ ...scope }), fn);
}

export function currentScope(): TurnScope | undefined {
  return storage.getStore();
}

/** What a tool answers when it is called outside any conversation. */
export const NO_SCOPE_MESSAGE =
  'No active conversation context: this tool can only be used while answering a message in a thread.';
