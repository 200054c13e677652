// What the approval scenarios (approval-contract.ts) need from a platform, in a user's words: an
// admin switches the team's tool server on in a channel; someone asks there and the model calls a
// destructive tool; people press the card's buttons; the expiry passes. Each platform implements
// it against its emulator (slack-, discord-, web-approval-driver.ts) with a real MCP server
// (test/support/mcp-test-server.ts).
import type { OpenAIEmulator } from '../emulators/openai/index.ts';
import type { HttpTestServer } from '../support/mcp-test-server.ts';

/** A call that waited for approval: where, and its card's buttons as they were first shown. */
export interface WaitingCall {
  /** Opaque to scenarios. */
  readonly where: 'a' | 'b';
}

export type Decision = 'once' | 'always' | 'deny';
/**
 * Who presses: the asker; someone else; a member of the approver group of the config
 * (`mcp.approvers`: a Slack user group, a Discord role); and someone outside it.
 */
export type Presser = 'asker' | 'other' | 'groupMember';

export interface SeenCard {
  text: string;
  /** Button labels; none once decided or expired. */
  buttons: string[];
}

export interface ApprovalDriver {
  readonly name: string;
  readonly llm: OpenAIEmulator;
  readonly mcp: HttpTestServer;
  /** An admin switches the `test` server on in channel `where`; what they were told, privately. */
  switchOn(where: 'a' | 'b'): Promise<string>;
  /**
   * The asker asks in a new thread of channel `where` (the model's replies are scripted by the
   * scenario); resolves once the turn is done, with the waiting call, or undefined: no card.
   */
  ask(where: 'a' | 'b', words: string): Promise<WaitingCall | undefined>;
  /** The call's card as the channel sees it now. */
  card(c: WaitingCall): SeenCard;
  /**
   * `as` presses a button the card showed first (also after it was taken away: a stale client);
   * how the press ended and what that person was told privately ('' if nothing).
   */
  press(c: WaitingCall, d: Decision, as: Presser): Promise<{ outcome: string; said: string }>;
  /** Resolves with the bot's words in the call's thread once they match. */
  waitInThread(c: WaitingCall, words: RegExp): Promise<string>;
  /** Time passes beyond the approval's expiry; how many expired. */
  expire(): Promise<number>;
  /** The bot stops and starts again on the same store (emulators and the MCP server stay). */
  restart(): Promise<void>;
  /** Split roles: the worker that ran the turn stops and another takes over. */
  replaceWorker?(): Promise<void>;
  close(): Promise<void>;
}

export type MakeApprovalDriver = (opts?: { split?: boolean }) => Promise<ApprovalDriver>;

/** The call every scenario's model makes, and the project it names. */
export const DELETE = { name: 'test__delete_everything', arguments: { project: 'OPS' } };
