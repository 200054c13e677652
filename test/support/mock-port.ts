// An in-memory platform port for the core's unit tests: records every call, keeps the thread's
// messages, and can be told to lack a status line or a native stream, or to close streams early.
import type { Destination, FileRef } from '../../src/model/incoming.ts';
import type {
  NativeStream,
  PlatformPort,
  Reaction,
  StatusKind,
  StatusShown,
  ThreadMessage,
} from '../../src/model/platform-port.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';

export interface MockCall {
  op: 'post' | 'edit' | 'delete' | 'status' | 'react' | 'startStream' | 'append' | 'stop';
  id?: string;
  text?: string;
  at: number;
}

export interface MockPortOptions {
  messageLimit?: number;
  /** Native stream limit; without it the port has no stream. */
  streamLimit?: number;
  status?: StatusShown;
  /** A stream refuses appends once it holds this many characters (the platform closed it). */
  closeStreamAfter?: number;
  /** startStream answers null (the workspace lacks the feature). */
  streamUnavailable?: boolean;
  statusRenewMs?: number;
  thread?: ThreadMessage[];
}

/** Neutralises like a real platform would, visibly, so tests can see it was applied. */
export const mockFormat = {
  neutralize: (md: string) =>
    md.replace(/@(everyone|here|channel)/gi, '＠$1').replace(/<@(\w+)>/g, '＠$1'),
};

export class MockPort implements PlatformPort {
  readonly platform = 'slack' as const;
  readonly limits: { message: number; stream?: number };
  readonly format = mockFormat;
  readonly statusRenewMs: number | undefined;
  readonly calls: MockCall[] = [];
  /** The thread as a person sees it: message id → text (deleted ones removed), in order. */
  readonly messages = new Map<string, string>();
  private next = 1;
  private readonly o: MockPortOptions;
  startStream?: (to: Destination, first: RenderedText) => Promise<NativeStream | null>;

  constructor(o: MockPortOptions = {}) {
    this.o = o;
    this.limits = {
      message: o.messageLimit ?? 200,
      ...(o.streamLimit ? { stream: o.streamLimit } : {}),
    };
    this.statusRenewMs = o.statusRenewMs;
    if (o.streamLimit) this.startStream = (to, first) => this.stream(to, first);
  }

  private record(call: Omit<MockCall, 'at'>, text?: RenderedText): void {
    if (text !== undefined && !RenderedText.isRendered(text)) throw new Error('unrendered text');
    this.calls.push({ ...call, at: Date.now() });
  }

  async post(_to: Destination, text: RenderedText): Promise<string> {
    const id = `m${this.next++}`;
    this.record({ op: 'post', id, text: text.text }, text);
    this.messages.set(id, text.text);
    return id;
  }

  async edit(_to: Destination, id: string, text: RenderedText): Promise<void> {
    if (!this.messages.has(id)) throw new Error(`edit of unknown message ${id}`);
    this.record({ op: 'edit', id, text: text.text }, text);
    this.messages.set(id, text.text);
  }

  async delete(_to: Destination, id: string): Promise<void> {
    this.record({ op: 'delete', id });
    this.messages.delete(id);
  }

  async showStatus(_to: Destination, _kind: StatusKind, text: RenderedText): Promise<StatusShown> {
    this.record({ op: 'status', text: text.text }, text);
    return this.o.status ?? 'text';
  }

  async react(_to: Destination, id: string, reaction: Reaction): Promise<void> {
    this.record({ op: 'react', id, text: reaction });
  }

  private async stream(_to: Destination, first: RenderedText): Promise<NativeStream | null> {
    if (this.o.streamUnavailable) return null;
    const id = `m${this.next++}`;
    this.record({ op: 'startStream', id, text: first.text }, first);
    this.messages.set(id, first.text);
    let open = true;
    return {
      messageId: id,
      append: async (text) => {
        const now = this.messages.get(id) ?? '';
        if (!open || now.length >= (this.o.closeStreamAfter ?? Number.POSITIVE_INFINITY)) {
          open = false;
          return false;
        }
        this.record({ op: 'append', id, text: text.text }, text);
        this.messages.set(id, now + text.text);
        return true;
      },
      stop: async () => {
        open = false;
        this.record({ op: 'stop', id });
      },
    };
  }

  async *readThread(): AsyncIterable<ThreadMessage> {
    for (const m of this.o.thread ?? []) yield m;
  }

  /** Ids here are decimal numbers (Slack-like), so they compare by value. */
  isBefore(a: string, b: string): boolean {
    return Number(a) < Number(b);
  }

  /** The thread's texts in posting order. */
  texts(): string[] {
    return [...this.messages.values()];
  }
}

export const REF: ThreadRef = {
  platform: 'slack',
  projectId: 'T1',
  channelId: 'C1',
  sessionId: '1.1',
};
export const TO: Destination = { ref: REF, context: {} };

export function fileRef(id: string, name: string, bytes: Uint8Array): FileRef {
  return { id, name, size: bytes.length, download: async () => bytes };
}
