// What the core shows a person in an interaction, as data: a card, buttons, a form, a confirmation,
// a private notice, field errors. A flow in src/core/interactions returns these; each adapter only
// renders them (Slack Block Kit, Discord components, the web page's JSON) and sends back what the
// person did. Text that may carry markup or someone's words is RenderedText (neutralised for the
// platform); titles, labels and choices are plain words every platform shows as typed.
import type { InteractionOutcome } from './handled.ts';
import type { Destination, FileRef, ThreadMessage } from './incoming.ts';
import type { RenderedText } from './rendered-text.ts';
import type { ThreadRef } from './thread-ref.ts';

/** Plain words (a title, a label, a choice): no markup, never a mention, on every platform. */
export type Label = string;

/** How a button looks: the step it leads to (primary), one that destroys (danger), or neither. */
export type ButtonStyle = 'primary' | 'danger';

/** The version an action reference starts with (`t1.…`, src/core/interactions/action-refs.ts). */
export const ACTION_REF_VERSION = 't1';

/** Whether a custom id or button value is one of the core's action references (not whether it is genuine). */
export function isActionRef(value: string): boolean {
  return value.startsWith(`${ACTION_REF_VERSION}.`);
}

/** A button; `ref` is a signed action reference (src/core/interactions/action-refs.ts). */
export interface ActionButton {
  label: Label;
  ref: string;
  style?: ButtonStyle;
}

export interface CardField {
  label: Label;
  value: RenderedText;
}

export interface Card {
  title?: Label;
  text: RenderedText;
  fields?: readonly CardField[];
  /** A small line under the text (who asked, until when). */
  context?: RenderedText;
  /** The sources line of an answer. */
  sources?: RenderedText;
  actions?: readonly ActionButton[];
}

export interface Choice {
  value: string;
  label: Label;
}

interface FieldBase {
  /** Names the field in values and errors (a Slack block_id, a Discord custom_id, an input name). */
  id: string;
  label: Label;
  help?: Label;
  optional?: boolean;
}

export type FormField =
  | (FieldBase & { kind: 'short'; initial?: string; maxLength?: number; placeholder?: Label })
  | (FieldBase & { kind: 'long'; initial?: string; maxLength: number; placeholder?: Label })
  | (FieldBase & { kind: 'select'; choices: readonly Choice[]; initial?: string })
  | (FieldBase & { kind: 'multi'; choices: readonly Choice[]; initial?: readonly string[] })
  | (FieldBase & { kind: 'number'; min: number; max: number; initial?: number })
  | (FieldBase & { kind: 'toggle'; initial?: boolean });

export interface Form {
  title: Label;
  intro?: RenderedText;
  fields: readonly FormField[];
  submit: { label: Label; ref: string };
  /** Closing the form answers this ref where the platform says so (a Slack modal's close). */
  cancel: { label: Label; ref: string };
}

/**
 * A question to confirm before something happens that cannot be taken back or reaches more people.
 * With `typedWord` a click is not enough: the person types the word (a Slack modal, a Discord modal
 * opened from the confirm button, a field on the web page).
 */
export interface Confirmation {
  title: Label;
  question: RenderedText;
  consequences?: RenderedText;
  confirm: { label: Label; ref: string; style: ButtonStyle };
  cancel: { label: Label; ref: string };
  /** Epoch ms after which the confirmation only says it expired. */
  expiresAt: number;
  typedWord?: { word: string; label: Label };
}

export type FormValue = string | number | boolean | readonly string[];
/** What a person filled in, by field id (a typed word is the field `word`). */
export type FormValues = Readonly<Record<string, FormValue | undefined>>;
/** A problem per field id, shown under the field (Slack `response_action: errors`). */
export type FieldErrors = Readonly<Record<string, Label>>;

/** The field id of a confirmation's typed word. */
export const TYPED_WORD_FIELD = 'word';

/**
 * One thing to show. `private`: only the person who acted sees it (ephemeral); `place`: everyone
 * where the flow runs. `replace`: it takes the place of the message the action came from (the
 * confirmation goes, with its buttons).
 */
export type Shown =
  | { kind: 'notice'; text: RenderedText; replace?: boolean }
  | { kind: 'card'; card: Card; audience: 'private' | 'place'; replace?: boolean }
  | { kind: 'form'; form: Form; errors?: FieldErrors }
  | {
      kind: 'confirm';
      confirmation: Confirmation;
      audience: 'private' | 'place';
      errors?: FieldErrors;
    }
  /** A file for the person who acted (an export): its words, then the file the platform's way. */
  | { kind: 'file'; text: RenderedText; file: SharedFile };

/** A file the core hands a person: its name and its text (CSV, JSON). */
export interface SharedFile {
  name: string;
  body: string;
}

/** Where a flow runs: the conversation and how to reach it. */
export interface Place {
  ref: ThreadRef;
  to: Destination;
}

/** The place of a conversation reached without platform details (a channel, a thread). */
export function placeAt(ref: ThreadRef): Place {
  return { ref, to: { ref, context: {} } };
}

/** What the platform says a person may do here; the core asks at every step. */
/** `forgetThread`: may make the bot forget a thread without having started it. */
export type Right = 'admin' | 'manageChannel' | 'forgetThread';

/**
 * Who acted. `may` asks the platform about a right, in `where` (the flow's channel) when it
 * depends on the channel (Slack: users.info and the channel's creator; Discord: the interaction's
 * permissions).
 */
export interface Actor {
  id: string;
  name?: string;
  may(right: Right, where?: ThreadRef): Promise<boolean>;
}

/** What a flow step gives the adapter: what to show, and where the flow's own place is. */
export interface InteractionReply {
  show: readonly Shown[];
  /** The flow's place (a form submitted from a modal tells its outcome there). */
  place?: Place;
  /** How the step ended (`done`, `asked`, `refused`…). */
  outcome?: InteractionOutcome;
}

/** The flows an adapter can start (src/core/interactions, one file each). */
export type FlowName =
  | 'share'
  | 'erase'
  | 'feedback'
  | 'export'
  | 'settings'
  | 'settings-show'
  | 'files'
  | 'forget'
  | 'usage'
  | 'approval'
  | 'ask-about';

/** The message a flow is about: its id and files, and who wrote it when the platform says. */
export interface AboutMessage {
  id: string;
  files: readonly FileRef[];
  /** Who wrote it and when (epoch ms): ask-about words its question with them. */
  authorId?: string;
  at?: number;
  /**
   * The message itself, where the platform hands it over and the bot cannot read the thread (a
   * Discord user install): quoted from here instead of a thread read.
   */
  quoted?: ThreadMessage;
}

/** A person begins a flow: a command, a shortcut or message command on a message. */
export interface InteractionStart {
  kind: 'start';
  flow: FlowName;
  actor: Actor;
  place: Place;
  /** The message the flow is about (a shortcut's message), with its files. */
  message?: AboutMessage;
  values?: FormValues;
  /**
   * An id for this request that sorts after the message (Slack: the shortcut's action_ts; Discord:
   * the interaction's snowflake), where the flow hands the conversation a message of its own.
   */
  requestId?: string;
  traceId: string;
  /** Delivery keys: a start delivered twice runs once. */
  dedupe?: readonly string[];
}

/** A person pressed a button or submitted a form the core showed: `ref` says which. */
export interface InteractionAct {
  kind: 'act';
  ref: string;
  actor: Actor;
  /** The project the action arrived from (a ref made for another one is refused). */
  project: Pick<ThreadRef, 'platform' | 'projectId'>;
  /** Where it was pressed, when the platform says (a modal's submission does not). */
  place?: Place;
  values?: FormValues;
  traceId: string;
}

export type InteractionRequest = InteractionStart | InteractionAct;

/**
 * Shows a flow's card or confirmation where everyone in a conversation sees it, buttons included
 * (a typed request's confirmation in its thread). A platform without it gets the words only.
 */
export interface InteractionSurface {
  /** Resolves with the posted message's id (to `update` it later), where the platform gives one. */
  post(
    to: Destination,
    shown: Extract<Shown, { kind: 'card' | 'confirm' }>,
  ): Promise<string | undefined>;
  /**
   * Puts `shown` in place of a message `post` made, buttons and all (a card without actions has
   * none left): an approval that expired with nobody pressing.
   */
  update(
    to: Destination,
    messageId: string,
    shown: Extract<Shown, { kind: 'card' }>,
  ): Promise<void>;
}
