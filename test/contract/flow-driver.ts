// What an interaction scenario needs from a platform, in words a user would use: ask to share a
// file (typed, or with the platform's action on the message), press a confirmation's button, type
// "confirm share", ask from elsewhere, erase the project, vote on an answer and say what was wrong,
// export the votes. Each platform implements it against its emulator (Slack and Discord:
// slack-flow-driver.ts, discord-flow-driver.ts; the web chat: web-flow-driver.ts); the scenarios in
// interaction-contract.ts, erase-contract.ts and feedback-contract.ts are written once against it.
import type { CommandName } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { HandledEvent, InteractedEvent } from '../../src/model/handled.ts';
import type { OpenAIEmulator } from '../emulators/openai/index.ts';
import type { Attachment, Who } from './driver.ts';

/** A confirmation (or answer) the bot showed the asker. Opaque to scenarios. */
export interface Asked {
  /** What the asker was told first: the confirmation's words, or the outcome. */
  said: string;
}

/** A confirmation (or answer) as its reader sees it now: its words and its buttons (none once answered). */
export interface SeenConfirmation {
  text: string;
  buttons: string[];
  /** Shown to the asker alone (Slack ephemeral, Discord ephemeral), not to the place. */
  onlyAsker: boolean;
}

export type Button = 'confirm' | 'cancel';

/** An answer of the bot's, with 👍/👎 under it. Opaque to scenarios. */
export interface Answered {
  text: string;
}

export type VoteButton = 'up' | 'down';

/** What an export gave: what the person was told, and the file when there was one. */
export interface Exported {
  said: string;
  file?: string;
}

export interface FlowDriver {
  readonly name: string;
  readonly llm: OpenAIEmulator;
  /** Places not everyone in the project can read (a private channel, a DM); false: none (the web chat). */
  readonly privatePlaces: boolean;

  /** The asker posts a file and, in the same message, asks the bot to share it with the project. */
  shareTyped(file: Attachment, where: 'private' | 'public'): Promise<Asked>;
  /**
   * The asker posts a message (with `file`, or words only), then uses the platform's action on it
   * (a message shortcut, a message command). Absent where the platform has none (the web chat).
   */
  shareFromMessage?(file: Attachment | undefined, where: 'private' | 'public'): Promise<Asked>;
  /**
   * `as` presses a button of the confirmation; `tamper` changes what the press carries (a forged
   * or altered reference). Resolves with what that person was told.
   */
  press(asked: Asked, button: Button, as?: Who, tamper?: (ref: string) => string): Promise<string>;
  /** `as` replies "@bot confirm share" where the share was asked; what the bot then said there. */
  typeConfirm(asked: Asked, as?: Who): Promise<string>;
  /** The confirmation as the asker sees it now. */
  confirmation(asked: Asked): SeenConfirmation;
  /** The reference a button carries. */
  refOf(asked: Asked, button: Button): string;
  /** Someone asks the bot a question somewhere else in the project; its answer. */
  askElsewhere(question: string): Promise<string>;
  /** Someone asks the bot in another project (workspace, server); absent where there is none. */
  askInAnotherProject?(question: string): Promise<string>;
  /** `as` asks to erase everything the bot stored for the project, the platform's way. */
  askErase(as: 'admin' | 'member'): Promise<Asked>;
  /**
   * The admin types `word` into the erase confirmation and confirms; what they were told (the
   * word's problem, or the outcome). `tamper` changes the reference the confirmation carries.
   */
  confirmErase(asked: Asked, word: string, tamper?: (ref: string) => string): Promise<string>;
  /** The admin cancels (or closes) the erase confirmation; what they were told. */
  cancelErase(asked: Asked): Promise<string>;
  /** Someone asks the bot a question; its answer, with 👍/👎 under it. */
  askForAnswer(question: string): Promise<Answered>;
  /**
   * The asker runs the commands table's command `name` in the thread of `a`, the platform's way
   * (Slack: a mention's words; Discord: the slash command; the web chat: `/name`), with `text`
   * where it takes words (ask); what they were told.
   */
  runCommand(a: Answered, name: CommandName, text?: string): Promise<string>;
  /**
   * Someone posts `text` (where the bot is not addressed; the web chat: the person's message, which
   * the bot answers), then the asker uses "Ask threadmind about this" on it, the platform's way
   * (Slack: the message shortcut; Discord: the message command; the web chat: the action under
   * the message); the bot's answer, once given in the message's thread.
   */
  askAbout(text: string): Promise<string>;
  /** The labels of the vote buttons under an answer. */
  voteButtons(a: Answered): string[];
  /**
   * `as` presses 👍 or 👎 under the answer; what they then see (their thanks, the button shown
   * pressed, or the reason form with its words and its field).
   */
  vote(a: Answered, vote: VoteButton, as?: Who): Promise<string>;
  /** `as` sends the reason form their last 👎 on the answer opened; what they were told. */
  giveReason(a: Answered, reason: string, as?: Who): Promise<string>;
  /** The project's feedback, exported the platform's way by an admin (or a member). */
  exportFeedback(as: 'admin' | 'member', format: 'csv' | 'json'): Promise<Exported>;
  /** The id a vote by `who` carries in an export. */
  idOf(who: Who): string;
  /**
   * `as` opens the settings of the channel the settings scenarios use, the platform's way (Slack
   * `/threadmind settings`, Discord `/settings set`, the web chat's `/settings`): the form, or what
   * they were told.
   */
  openSettings(as: 'admin' | 'member'): Promise<Asked>;
  /**
   * The admin changes these fields of the form (by field id, the rest as the form shows them) and
   * saves; what they were told (each field's problem, or the outcome).
   */
  saveSettings(asked: Asked, values: Record<string, string>): Promise<string>;
  /** Someone asks the bot in that channel; resolves once it has answered. */
  askWhereSettings(question: string): Promise<void>;
  /** The bot stops and starts again on the same store. */
  restart(): Promise<void>;
  /** Split roles: the worker that handled the last message stops, and another one takes over. */
  replaceWorker?(): Promise<void>;
  close(): Promise<void>;
}

export type MakeFlowDriver = (opts?: {
  overrides?: Record<string, unknown>;
  /** Split roles on a Redis of the driver's own: an ingress (or gateway) and a worker. */
  split?: boolean;
}) => Promise<FlowDriver>;

/** Resolves on the first core event (from any of the cores watched) that matches. */
export class CoreWatch {
  private readonly handledSeen: HandledEvent[] = [];
  private readonly interactedSeen: InteractedEvent[] = [];
  private readonly waiters = new Set<() => void>();

  watch(core: Conversation): void {
    core.events.on('handled', (e: HandledEvent) => {
      this.handledSeen.push(e);
      for (const w of [...this.waiters]) w();
    });
    core.events.on('interacted', (e: InteractedEvent) => {
      this.interactedSeen.push(e);
      for (const w of [...this.waiters]) w();
    });
  }

  /** How many interactions have finished so far (to wait for the next one). */
  get interactions(): number {
    return this.interactedSeen.length;
  }

  private until<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = probe();
        if (hit === undefined) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /**
   * The message handled for good: not merely queued (by an ingress), nor a second delivery of it
   * dropped as a duplicate (Slack sends a mention as two events).
   */
  handled(messageId: string): Promise<HandledEvent> {
    const passing = new Set(['queued', 'duplicate', 'ignored']);
    return this.until(
      () =>
        this.handledSeen.find((e) => e.messageId === messageId && !passing.has(e.handled.status)),
      `handling of ${messageId}`,
    );
  }

  /** The next interaction (after `since` of them) by this person. */
  interacted(since: number, actorId: string): Promise<InteractedEvent> {
    return this.until(
      () => this.interactedSeen.slice(since).find((e) => e.actorId === actorId),
      `interaction by ${actorId}`,
    );
  }
}
