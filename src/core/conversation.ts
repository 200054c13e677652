// The core's face to the adapters: an adapter translates a platform event into an InboundMessage
// (or files), and everything after that — who is addressed, de-duplication, participation, files
// and their outcome messages, commands, answers — happens here, the same for every platform.
import { EventEmitter } from 'node:events';
import type { Logger } from '../log/logger.ts';
import type { ChangedEvent, Handled, HandledEvent, InteractedEvent } from '../model/handled.ts';
import type { Handoff, InboundFiles, InboundMessage, MessageChange } from '../model/incoming.ts';
import type {
  InteractionReply,
  InteractionRequest,
  InteractionSurface,
} from '../model/interaction.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import type { PlatformSettings } from '../model/platform-settings.ts';
import { channelOwner, sessionKey, sessionOwner, type ThreadRef } from '../model/thread-ref.ts';
import { KeyedQueue } from '../util/keyed-queue.ts';
import type { EffectiveSettings } from './channel-settings.ts';
import type { ConversationOptions } from './conversation-options.ts';
import { FileSharing } from './file-sharing.ts';
import { intentOf, SHARE_REQUEST } from './intents.ts';
import { ActionRefs } from './interactions/action-refs.ts';
import { AskAboutFlow } from './interactions/ask-about-flow.ts';
import { withConfiguredAdmins } from './interactions/configured-admins.ts';
import { InteractionEngine } from './interactions/engine.ts';
import { EraseFlow } from './interactions/erase-flow.ts';
import { ExportFlow } from './interactions/export-flow.ts';
import { FeedbackFlow } from './interactions/feedback-flow.ts';
import { FilesFlow } from './interactions/files-flow.ts';
import { ForgetFlow } from './interactions/forget-flow.ts';
import { PendingFlows } from './interactions/pending-flows.ts';
import { SettingsFlow, SettingsShowFlow } from './interactions/settings-flow.ts';
import { ShareFlow } from './interactions/share-flow.ts';
import { signingKeys } from './interactions/signing-keys.ts';
import { ToolApprovalFlow } from './interactions/tool-approval-flow.ts';
import { UsageFlow } from './interactions/usage-flow.ts';
import { applyMessageChange } from './message-changes.ts';
import { MessageRouter } from './message-router.ts';
import { messages } from './messages.ts';
import { ingestQueued, queueFiles } from './queued-files.ts';
import { ThreadOutput } from './thread-output.ts';
import { wireApprovals } from './tool-approval-wiring.ts';
import { TypedCommands } from './typed-commands.ts';

interface Attached {
  port: PlatformPort;
  settings: PlatformSettings;
  surface: InteractionSurface | undefined;
}

/** The turn worker's side: a queued message run here, and a reply writer for one that failed. */
export interface QueuedRuns {
  /**
   * A message another process claimed and queued (already known new and addressed). Rejects when
   * handling fails outside a turn, so the queue retries it; a turn's own failures are answers.
   */
  run(m: InboundMessage): Promise<Handled>;
  /** A reply writer for `to`, for messages outside a turn (a job that failed for good). */
  output(to: Destination, log: Logger): ThreadOutput;
}

export class Conversation {
  private readonly o: ConversationOptions;
  private readonly ports = new Map<string, Attached>();
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
  private readonly router: MessageRouter;
  /** For the turn worker (split roles). */
  readonly queued: QueuedRuns;

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
        new UsageFlow(o.usage),
        new SettingsFlow(o.settings, o.toolServers),
        new SettingsShowFlow(o.settings),
        new FilesFlow(o.index),
        new ForgetFlow(o),
        new AskAboutFlow((m) => this.receiveMessage(m)),
        ...(o.approvals
          ? [new ToolApprovalFlow(o.approvals, o.settings, o.groupsOf ?? (async () => []))]
          : []),
      ],
      refs: new ActionRefs(signingKeys(i.signingKeys, i.store)),
      pending: new PendingFlows(i.store),
      ttlMs: i.ttlMs,
      botName: o.botName,
      platform: (name) => {
        const p = this.platform(name);
        return { ...p, interactive: p.surface !== undefined };
      },
      claimOnce: async (keys) => (await o.state.claimOnce(keys)) === 'new',
      emit: (e) => this.events.emit('interacted', e satisfies InteractedEvent),
      log: o.log,
    });
    if (o.approvals)
      wireApprovals(
        o.approvals,
        this.flows,
        (n) => this.platform(n),
        (m) => this.receiveMessage(m),
        o.log,
      );
    const platform = (name: string) => this.platform(name);
    const output = (to: Destination, log: Logger) => this.output(to, log);
    this.router = new MessageRouter({
      ...o,
      flows: this.flows,
      commands: new TypedCommands({
        ...o,
        files: this.files,
        flows: this.flows,
        ttlMs: i.ttlMs,
        platform,
        output,
      }),
      platform,
      output,
      logFor: (m) => this.logFor(m),
    });
    this.queued = {
      run: async (m) => {
        this.platform(m.ref.platform);
        if (m.ingestFiles) {
          const log = this.logFor(m).child({ message_id: m.messageId });
          await ingestQueued(m, m.ingestFiles, this.files, this.output(m.to, log), log);
          this.events.emit('files', { platform: m.ref.platform, messageId: m.messageId });
          return { status: 'ignored' };
        }
        this.router.noteLive(m);
        const channel = await this.o.settings.effective(m.ref);
        return this.emit(m.ref.platform, m.messageId, await this.router.route(m, channel));
      },
      output,
    };
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
    this.router.noteLive(m);
    // Handed off, an addressed message needs no settings here (the worker reads them): one store
    // read fewer before a burst is acknowledged.
    const channel =
      this.o.handoff && m.addressed !== 'ambient'
        ? undefined
        : await this.o.settings.effective(m.ref);
    if (m.addressed === 'ambient' && !(channel && (await this.answersUnaddressed(m, channel)))) {
      return done({ status: 'ignored' });
    }
    const pendingMs = this.o.handoff ? this.o.claimPendingMs : undefined;
    const claim = await this.o.state.claimOnce(m.dedupe, pendingMs);
    if (claim === 'pending' && m.redelivered) {
      // The platform sends it again because the first copy was not acknowledged, and that copy is
      // not queued: its process may have died holding the claim. Acknowledging would lose it; the
      // platform is asked to send it again later, when the claim is queued or has lapsed.
      this.logFor(m).info({ message_id: m.messageId }, 'redelivery of a message not queued yet');
      return done({ status: 'deferred' });
    }
    if (claim !== 'new') {
      this.o.metrics.duplicateEvents.inc({ platform: m.ref.platform });
      this.logFor(m).debug({ message_id: m.messageId }, 'duplicate delivery ignored');
      return done({ status: 'duplicate' });
    }
    try {
      const { handoff } = this.o;
      if (handoff) {
        const queued = await this.handOff(m, handoff);
        if (pendingMs !== undefined) await this.o.state.confirmClaims(m.dedupe);
        return done(queued);
      }
      if (!channel) throw new Error('channel settings were not read');
      return done(await this.router.route(m, channel));
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

  /**
   * Queues the message for the answer's thread where it asks for one: named ahead (the worker
   * opens it), or else opened here.
   */
  private async handOff(m: InboundMessage, handoff: Handoff): Promise<Handled> {
    const intent = intentOf(m);
    const wantsThread = intent === 'ask' || intent === 'summarize';
    const opened = !wantsThread
      ? undefined
      : (m.threadAhead ?? (m.openThread ? await m.openThread() : undefined));
    await handoff(m, opened);
    return { status: 'queued' };
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

  /**
   * Files posted with a message: read into the thread (inside one) or the channel (at its top
   * level), telling the poster about any it cannot read. Runs in the background; the ingestor
   * makes two deliveries of one file a single ingestion.
   */
  receiveFiles(f: InboundFiles): void {
    const ingestor = this.o.ingestor;
    if (f.files.length === 0 || SHARE_REQUEST.test(f.text)) return;
    // Split roles: the files travel with a job of their own; the worker that takes it reads them.
    if (this.o.handoff) {
      const log = this.logFor(f).child({ message_id: f.messageId });
      this.arrivals
        .run(sessionKey(f.ref), () =>
          queueFiles(f, this.o.state, this.o.handoff, this.o.claimPendingMs),
        )
        .catch((err: unknown) => log.error({ err }, 'could not queue the files'));
      return;
    }
    if (!ingestor) return;
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
    const platform = r.kind === 'start' ? r.place.ref.platform : r.project.platform;
    const actor = withConfiguredAdmins(r.actor, this.ports.get(platform)?.settings.admins);
    return r.kind === 'start'
      ? this.flows.start({ ...r, actor, via: 'interaction' })
      : this.flows.act({ ...r, actor });
  }

  /**
   * A message was edited or deleted. In a conversation the bot follows, stored history takes the
   * new text or loses the message (a summary that covered it is made again before it is used).
   */
  async receiveChange(c: MessageChange): Promise<boolean> {
    // A question deleted while it waits for a slot leaves the queue.
    if (c.text === undefined) await this.o.runner.withdraw(c.ref, c.messageId);
    return applyMessageChange(
      {
        state: this.o.state,
        lockWaitMs: this.o.lockWaitMs,
        log: this.logFor(c).child({ message_id: c.messageId }),
        emit: (e) => this.events.emit('changed', e satisfies ChangedEvent),
      },
      c,
    );
  }
}
