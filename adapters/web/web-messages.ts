// What the web chat's transcript holds and what its listeners (the page's event streams) receive:
// threads, messages with their files, reactions, sources, votes and cards, as JSON.
import type { FormParts } from '../../src/model/confirmation-parts.ts';
import type { ActionButton, FormField } from '../../src/model/interaction.ts';
import type { Reaction } from '../../src/model/platform-port.ts';

export interface WebFile {
  id: string;
  name: string;
  size: number;
}

export interface WebMessage {
  id: string;
  author: 'person' | 'bot';
  text: string;
  /** Epoch milliseconds. */
  at: number;
  files?: WebFile[];
  /** The bot's ✅/⚠️ on a message that carried files. */
  reactions?: Reaction[];
  /** Files of this message are read or refused (their outcome is in the thread). */
  filesDone?: boolean;
  /** The page's id for a send, so a repeated send is one message. */
  clientId?: string;
  /** A natively streamed answer still being written. */
  streaming?: boolean;
  /** What the answer used, one line each (outdated ones say so). */
  sources?: string[];
  /** 👍 and 👎 under an answer (their action references); absent: no buttons. */
  votes?: { label: string; ref: string }[];
  /** The reference of the vote given here (its button shows pressed). */
  voted?: string;
  /** A flow's card, confirmation or form under the text. */
  card?: WebCard;
}

/** Each kind of field without its placeholder (the page shows none). */
type NoPlaceholder<F> = F extends unknown ? Omit<F, 'placeholder'> : never;

/** A field of a card's form, as the page draws it: the core's FormField as JSON. */
export type WebField = NoPlaceholder<FormField>;

/**
 * What a flow shows on the page (the core's card, confirmation or form as JSON): its words are
 * the bot's (Markdown, rendered by the page like an answer), its buttons and form carry action
 * references the page posts back.
 */
export interface WebCard {
  title?: string;
  fields?: { label: string; value: string }[];
  context?: string;
  actions?: ActionButton[];
  form?: { fields: WebField[]; submit: FormParts['submit']; cancel: FormParts['cancel'] };
  /** Problems with what was filled in, by field id. */
  errors?: Record<string, string>;
  /** A file for the person (an export), downloaded from the page. */
  file?: { name: string; body: string };
}

export interface WebThread {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
}

/** What a thread's listeners receive. */
export type WebEvent =
  | { type: 'message'; message: WebMessage }
  | { type: 'append'; id: string; text: string }
  | { type: 'delete'; id: string }
  | { type: 'status'; text: string | null }
  | { type: 'thread'; thread: WebThread }
  | { type: 'handled'; messageId: string; status: string };
