// The core's face to the adapters: an adapter translates a platform event into an InboundMessage
// (or files), and everything after that — who is addressed, de-duplication, participation, files
// and their outcome messages, commands, answers — happens here, the same for every platform.
import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import { ownerLabel } from '../attachments/attachment-tools.ts';
import type { AttachmentIndex } from '../attachments/index/index.ts';
import type { Ingestor } from '../attachments/ingest.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { ChangedEvent, Handled, HandledEvent, InteractedEvent } from '../model/handled.ts';
import type {
  AskAbout,
  Handoff,
  InboundFiles,
  InboundMessage,
  MessageChange,
} from '../model/incoming.ts';
import type {
  InteractionReply,
  InteractionRequest,
  InteractionSurface,
} from '../model/interaction.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import type { PlatformSettings } from '../model/platform-settings.ts';
import {
  channelOwner,
  ownersOf,
  sessionKey,
  sessionOwner,
  type ThreadRef,
} from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';
import { KeyedQueue } from '../util/keyed-queue.ts';
import { AnswerAudience, type EvidenceAccess } from './audience.ts';
import type { ChannelSettingsService, EffectiveSettings } from './channel-settings.ts';
import type { FeedbackService } from './feedback.ts';
import { CONFIRM_SHARE_REQUEST, FileSharing } from './file-sharing.ts';
import { intentOf, SHARE_REQUEST } from './intents.ts';
import { ActionRefs } from './interactions/action-refs.ts';
import { InteractionEngine } from './interactions/engine.ts';
import { EraseFlow } from './interactions/erase-flow.ts';
import { ExportFlow } from './interactions/export-flow.ts';
import { FeedbackFlow } from './interactions/feedback-flow.ts';
import { PendingFlows } from './interactions/pending-flows.ts';
import { SettingsFlow, SettingsShowFlow } from './interactions/settings-flow.ts';
import { ShareFlow } from './interactions/share-flow.ts';
import { showInConversation } from './interactions/show-in-conversation.ts';
import { signingKeys } from './interactions/signing-keys.ts';
import { messages } from './messages.ts';
import type { ProjectEraser } from './project-eraser.ts';
import type { SessionState } from './session-state.ts';
import type { ThreadContext } from './thread-context.ts';
import { ThreadOutput } from './thread-output.ts';
import type { TurnRunner } from './turn-runner.ts';

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
   * being run in this process; a worker runs it with `runQueued`.
   */
  handoff?: Handoff | undefined;
  /**
   * False where this process does not receive every message (a worker gets only queued ones): the
   * hint that lets a follow-up start beside its thread read needs to have seen them all.
   */
  seesEveryMessage?: boolean | undefined;
  /** Wraps every attached port (a worker records what each job posted, for a durable turn). */
  wrapPort?: ((port: PlatformPort) => PlatformPort) | undefined;
  /** Votes on answers; absent: votes are refused as unreadable. */
  feedback?: FeedbackService | undefined;
  /** Erases a project's stored data for its admins; absent: erasing is refused. */
  eraser?: ProjectEraser | undefined;
  /** Flows between their steps: kept in `store`; references signed with keys from `signingKeys`. */
  interactions: {
    store: Pick<Store, 'kv' | 'claim' | 'holder'>;
    /** THREADMIND_ENCRYPTION_KEY's keys, parsed; absent: a random key kept in the store. */
    signingKeys?: readonly Buffer[] | undefined;
    /** How long a confirmation waits for its answer. */
    ttlMs: number;
  };
}

interface Attached {
  port: PlatformPort;
  settings: PlatformSettings;
  surface: InteractionSurface | undefined;
}

export class Conversation {
  private readonly o: ConversationOptions;
  private readonly ports = new Map<string, Attached>();
  /**
   * The latest message ids this process saw per thread: a hint (never the truth, which the thread
   * read gives) that nothing was posted between the last read and a follow-up.
   */
  private readonly live = new LRUCache<string, string[]>({ max: 20_000 });
  /**
   * `handled` (HandledEvent) once a delivery's processing, its turn included, is over; `changed`
   * (ChangedEvent) once an edit or deletion has been applied or found irrelevant; `interacted`
   * (InteractedEvent) once a flow's start or step is over.
   */
  readonly events = new EventEmitter();
  /** Handoff mode: a session's deliveries are taken one at a time, in arrival order. */
  private readonly arrivals = new KeyedQueue();

  private readonly files: FileSharing;
  private readonly flows: InteractionEngine;

  constructor(o: ConversationOptions) {
    this.o = o;
    this.files = new FileSharing({
      ingestor: o.ingestor,
      port: (name) => this.platform(name).port,
    });
    const i = o.interactions;
    this.flows = new InteractionEngine({
      flows: [
        new ShareFlow(this.files),
        new EraseFlow(o.eraser),
        new FeedbackFlow(o.feedback),
        new ExportFlow(o.feedback),
        new SettingsFlow(o.settings),
        new SettingsShowFlow(o.settings),
      ],
      refs: new ActionRefs(signingKeys(i.signingKeys, i.store)),
      pending: new PendingFlows(i.store),
      ttlMs: i.ttlMs,
      botName: o.botName,
      platform: (name) => {
        const p = this.platform(name);
        return { ...p, interactive: p.surface !== undefined };
      },
      claimOnce: (keys) => o.state.claimOnce(keys),
      emit: (e) => this.events.emit('interacted', e satisfies InteractedEvent),
      log: o.log,
    });
  }

  /**
   * A platform's port and words; `surface` shows cards and confirmations with their buttons in a
   * conversation (absent: their words only).
   */
  attach(port: PlatformPort, settings: PlatformSettings, surface?: InteractionSurface): void {
    this.ports.set(port.platform, {
      port: this.o.wrapPort?.(port) ?? port,
      settings,
      surface,
    });
  }

  private platform(name: string): Attached {
    const p = this.ports.get(name);
    if (!p) throw new Error(`no platform port attached for ${name}`);
    return p;
  }

  /** An output for one reply in `to`. */
  private output(to: Destination, log: Logger): ThreadOutput {
    const { port, settings } = this.platform(to.ref.platform);
    return new ThreadOutput({ port, to, log, ...settings });
  }

  /** Reports a delivery the adapter dropped itself (another bot's post, a join message, …). */
  skipped(platform: string, messageId: string): void {
    this.emit(platform, messageId, { status: 'ignored' });
  }

  private emit(platform: string, messageId: string, handled: Handled): Handled {
    this.events.emit('handled', { platform, messageId, handled } satisfies HandledEvent);
    return handled;
  }

  private logFor(m: { traceId: string; ref: ThreadRef }): Logger {
    return this.o.log.child({ trace_id: m.traceId, platform: m.ref.platform });
  }

  /**
   * A person's message. Resolves when it is fully handled (answered, refused, ignored); never
   * rejects for the user's sake: failures end as a message in the thread.
   */
  async receiveMessage(m: InboundMessage): Promise<Handled> {
    // Queued messages take their session's next number in the order they arrived here.
    if (this.o.handoff) return this.arrivals.run(sessionKey(m.ref), () => this.receive(m));
    return this.receive(m);
  }

  private async receive(m: InboundMessage): Promise<Handled> {
    const done = (h: Handled) => this.emit(m.ref.platform, m.messageId, h);
    this.platform(m.ref.platform);
    this.noteLive(m);
    const channel = await this.o.settings.effective(m.ref);
    if (m.addressed === 'ambient' && !(await this.answersUnaddressed(m, channel))) {
      return done({ status: 'ignored' });
    }
    if (!(await this.o.state.claimOnce(m.dedupe))) {
      this.o.metrics.duplicateEvents.inc({ platform: m.ref.platform });
      this.logFor(m).debug({ message_id: m.messageId }, 'duplicate delivery ignored');
      return done({ status: 'duplicate' });
    }
    try {
      const { handoff } = this.o;
      return done(handoff ? await this.handOff(m, handoff) : await this.route(m, channel));
    } catch (err) {
      // Opening the thread, reading it or a store call failed: say so where the person asked.
      const log = this.logFor(m).child({ message_id: m.messageId });
      log.error({ err }, 'message handling failed');
      this.o.metrics.errors.inc({ kind: 'internal' });
      await this.output(m.to, log)
        .reportError(messages.handlingFailed)
        .catch((postErr: unknown) => log.error({ err: postErr }, 'could not say so either'));
      return done({ status: 'failed' });
    }
  }

  /** Opens the answer's thread where the message asks for one, then queues the message. */
  private async handOff(m: InboundMessage, handoff: Handoff): Promise<Handled> {
    const intent = intentOf(m);
    const opened =
      m.openThread && (intent === 'ask' || intent === 'summarize')
        ? await m.openThread()
        : undefined;
    await handoff(m, opened);
    return { status: 'queued' };
  }

  /**
   * A message another process claimed and queued (already known new and addressed). Rejects when
   * handling fails outside a turn, so the queue retries it; a turn's own failures are answers.
   */
  async runQueued(m: InboundMessage): Promise<Handled> {
    this.platform(m.ref.platform);
    this.noteLive(m);
    const channel = await this.o.settings.effective(m.ref);
    return this.emit(m.ref.platform, m.messageId, await this.route(m, channel));
  }

  /** A reply writer for `to`, for messages outside a turn (a job that failed for good). */
  outputFor(to: Destination, log: Logger): ThreadOutput {
    return this.output(to, log);
  }

  private noteLive(m: InboundMessage): void {
    if (m.topLevel) return;
    const key = sessionKey(m.ref);
    const ids = this.live.get(key) ?? [];
    this.live.set(key, [...ids.slice(-15), m.messageId]);
  }

  /** No message was seen between the session's last read and `m`: the read will likely find nothing. */
  private async quietSince(
    reader: ThreadContext,
    port: PlatformPort,
    m: InboundMessage,
    ref: ThreadRef,
  ) {
    // Another channel's messages, or messages handed over, always come with the read: nothing
    // to gain by starting early.
    if (
      m.topLevel ||
      m.viewedChannel ||
      (m.delivered?.length ?? 0) > 0 ||
      this.o.seesEveryMessage === false
    )
      return false;
    const cursor = await reader.cursor(ref);
    if (cursor === undefined) return false;
    const seen = this.live.get(sessionKey(ref)) ?? [];
    return !seen.some((id) => port.isBefore(cursor, id) && port.isBefore(id, m.messageId));
  }

  /** A message that did not address the bot, under the channel's reply mode. */
  private async answersUnaddressed(
    m: InboundMessage,
    channel: EffectiveSettings,
  ): Promise<boolean> {
    if (m.text === '') return false;
    switch (channel.settings.replyMode) {
      case 'all':
        return true;
      case 'thread':
        return !m.topLevel && !m.mentionsOthers && this.o.state.isParticipating(m.ref);
      default:
        return false;
    }
  }

  private async route(m: InboundMessage, channel: EffectiveSettings): Promise<Handled> {
    const intent = intentOf(m);
    let { ref, to } = m;
    if (m.openThread && (intent === 'ask' || intent === 'summarize')) {
      ({ ref, to } = await m.openThread());
    }
    const msg = { ...m, ref, to };
    const log = this.logFor(msg).child({ message_id: m.messageId });
    const out = this.output(to, log);
    const { port } = this.platform(m.ref.platform);
    const reader = this.o.threadContext;
    const speculate = reader !== undefined && (await this.quietSince(reader, port, m, ref));
    // Without a read first, the name comes from the platform (cached after earlier reads).
    const askerName =
      m.principalName ?? (speculate ? await port.displayName?.(m.principal) : undefined);
    const input = {
      askerName,
      settings: channel.settings,
      audience: new AnswerAudience({
        port,
        to,
        asker: m.principal,
        mode: channel.settings.knowledgeAudience,
        access: this.o.evidenceAccess,
        log,
      }),
      // At the top level the context is the channel (read where the message was, `m.to`); it is
      // remembered for the session the answer opens.
      ...(reader
        ? {
            context: () =>
              reader.read(
                port,
                { ...m, ref, to: m.topLevel ? m.to : to },
                channel.settings.channelContext,
                log,
              ),
            speculate,
          }
        : {}),
      votes: (turn: string) => this.flows.buttons('feedback', { ref, to }, { turn }),
    };
    switch (intent) {
      case 'share':
        return this.shareTyped(msg, log);
      case 'forget':
        return this.forgetOnRequest(msg, out);
      case 'files':
        await out.post(await this.listFiles(ref));
        return { status: 'listed' };
      case 'summarize':
        return { status: 'turn', outcome: await this.o.runner.summarize(msg, out, input) };
      default:
        await this.o.state.participate(ref);
        if (m.text === '') {
          await out.post(messages.emptyMention(this.o.botName));
          return { status: 'hinted' };
        }
        return { status: 'turn', outcome: await this.o.runner.submit(msg, out, input) };
    }
  }

  /**
   * Files posted with a message: read into the thread (inside one) or the channel (at its top
   * level), telling the poster about any it cannot read. Runs in the background; the ingestor
   * makes two deliveries of one file a single ingestion.
   */
  receiveFiles(f: InboundFiles): void {
    const ingestor = this.o.ingestor;
    if (!ingestor || f.files.length === 0 || SHARE_REQUEST.test(f.text)) return;
    const owner = f.where === 'session' ? sessionOwner(f.ref) : channelOwner(f.ref);
    const log = this.logFor(f).child({ message_id: f.messageId });
    this.files.ingestAll(owner, f.files, f.to, f.messageId, log, this.output(f.to, log)).then(
      () => this.events.emit('files', { platform: f.ref.platform, messageId: f.messageId }),
      (err: unknown) => log.error({ err }, 'file ingestion failed'),
    );
  }

  /**
   * A person began a flow (a command, a shortcut) or acted on what one showed (a button, a form):
   * what to show them. Never rejects: a failure is logged and told privately.
   */
  interact(r: InteractionRequest): Promise<InteractionReply> {
    return r.kind === 'start' ? this.flows.start({ ...r, via: 'interaction' }) : this.flows.act(r);
  }

  /**
   * "Share this with the workspace", and "confirm share" for a share waiting in this channel: the
   * share flow, answered in the conversation.
   */
  private async shareTyped(m: InboundMessage, log: Logger): Promise<Handled> {
    const { port, surface } = this.platform(m.ref.platform);
    // A typed request needs no right; the flow asks who may answer it.
    const actor = { id: m.principal, may: async () => false };
    const place = { ref: m.ref, to: m.to };
    let reply: { show: InteractionReply['show']; outcome: string } | undefined;
    if (CONFIRM_SHARE_REQUEST.test(m.text)) {
      reply = await this.flows.typed('share', 'ok', { actor, place, traceId: m.traceId });
      if (!reply) {
        const minutes = Math.round(this.o.interactions.ttlMs / 60_000);
        await this.output(m.to, log).post(messages.nothingToConfirm(minutes));
        return { status: 'shared' };
      }
    } else {
      reply = await this.flows.start({
        flow: 'share',
        actor,
        place,
        via: 'message',
        message: await this.files.typedRequest(m),
        traceId: m.traceId,
      });
    }
    await showInConversation(reply.show, { port, surface, to: m.to });
    return { status: reply.outcome === 'asked' ? 'confirming' : 'shared' };
  }

  /**
   * "@bot forget this thread": allowed in a direct conversation, or to the person who started the
   * thread (its first message is theirs), unless the adapter answered with the platform's own
   * permission model (`mayForget`).
   */
  private async forgetOnRequest(m: InboundMessage, out: ThreadOutput): Promise<Handled> {
    const { port } = this.platform(m.ref.platform);
    let starter: string | undefined;
    if (m.mayForget === false) {
      await out.post(messages.forgetRefused);
      return { status: 'refused' };
    }
    if (m.addressed !== 'direct' && m.mayForget !== true) {
      for await (const first of port.readThread(m.to, { limit: 1 })) {
        starter = first.authorId;
        break;
      }
    }
    if (m.addressed !== 'direct' && m.mayForget !== true && starter !== m.principal) {
      await out.post(messages.forgetRefused);
      return { status: 'refused' };
    }
    await out.post(await this.forget(m.ref, m.messageId));
    return { status: 'forgotten' };
  }

  /** Forgets a session: history, memory, participation, what was read and the files posted in it. */
  private async forget(ref: ThreadRef, upTo: string): Promise<string> {
    await this.o.state.forget(ref);
    await this.o.threadContext?.forget(ref, upTo);
    return messages.forgotten;
  }

  /**
   * A message was edited or deleted. In a conversation the bot follows, stored history takes the
   * new text or loses the message (a summary that covered it is made again before it is used).
   */
  async receiveChange(c: MessageChange): Promise<boolean> {
    const emit = (applied: boolean) => {
      this.events.emit('changed', {
        platform: c.ref.platform,
        messageId: c.messageId,
        applied,
      } satisfies ChangedEvent);
      return applied;
    };
    const log = this.logFor(c).child({ message_id: c.messageId });
    try {
      if (!(await this.o.state.isParticipating(c.ref))) return emit(false);
      // Under the session's lock: a turn running now would otherwise save over the change.
      const lock = await this.o.state.lock(c.ref, this.o.lockWaitMs);
      try {
        const applied = await this.o.state.applyChange(c.ref, c.messageId, c.text);
        if (applied) log.info({ deleted: c.text === undefined }, 'thread message change applied');
        return emit(applied);
      } finally {
        await lock.release().catch((err: unknown) => log.warn({ err }, 'lock release failed'));
      }
    } catch (err) {
      log.error({ err }, 'could not apply a message change');
      return emit(false);
    }
  }

  /**
   * "Ask threadmind about this": a question about one message, answered in its thread. The message
   * and its files reach the turn the way every thread message does: read as quoted material (never
   * as instructions) and its files taken into the thread.
   */
  async askAbout(a: AskAbout): Promise<Handled> {
    const { port } = this.platform(a.ref.platform);
    const name =
      a.message?.authorName ?? (await port.displayName?.(a.about.authorId).catch(() => undefined));
    return this.receiveMessage({
      ref: a.ref,
      to: a.to,
      principal: a.principal,
      text: messages.askAbout(
        name ? `${name} (${a.about.authorId})` : a.about.authorId,
        a.about.at,
      ),
      messageId: a.requestId,
      receivedAt: Date.now(),
      traceId: a.traceId,
      addressed: 'command',
      intent: 'ask',
      topLevel: false,
      dedupe: a.dedupe,
      ...(a.message ? { delivered: [a.message] } : {}),
      ...(a.openThread ? { openThread: a.openThread } : {}),
    });
  }

  /** The files a turn in `ref` could read. */
  private async listFiles(ref: ThreadRef): Promise<string> {
    const files = this.o.index ? await this.o.index.listFiles(ownersOf(ref)) : [];
    if (files.length === 0) return messages.noFiles;
    return messages.fileList(
      files.map(
        (f) =>
          `${f.filename} (${f.kind}${f.pages ? `, ${f.pages} pages` : ''}, ${ownerLabel(f.owner)})`,
      ),
    );
  }
}
