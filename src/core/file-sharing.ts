// Files reaching the core: read for their owner, with a reaction on the message for each and,
// where the caller says so, a message for a failure; and shared with the whole project on request,
// typed ("@bot share this with the workspace", confirmed by "confirm share" from a private place)
// or on one message (a shortcut or message command, confirmed by a button that names the message).
import { LRUCache } from 'lru-cache';
import { type IngestOutcome, type Ingestor, incomingFile } from '../attachments/ingest.ts';
import type { Logger } from '../log/logger.ts';
import type { FileRef, InboundMessage } from '../model/incoming.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import { type Owner, projectOwner, type ThreadRef } from '../model/thread-ref.ts';
import { messages } from './messages.ts';
import type { ProjectPlace } from './project-eraser.ts';
import type { SessionState } from './session-state.ts';
import type { ThreadOutput } from './thread-output.ts';

/**
 * "Share file with the workspace" used on one message (a Slack message shortcut, a Discord message
 * command). Stateless: a confirmation names the message, and the adapter reads its files again.
 */
export interface ShareMessageFiles {
  /** The conversation the message is in (reactions and reach are read there). */
  ref: ThreadRef;
  to: Destination;
  /** Who asked now (on a confirmation: who pressed the button). */
  principal: string;
  /** The message that carries the files. */
  messageId: string;
  files: FileRef[];
  /** The person pressed the confirmation's button: share even from a private place. */
  confirmed: boolean;
  /** On a confirmation: who asked for the share (the button carries it); nobody else may confirm. */
  askedBy?: string;
  traceId: string;
  dedupe: string[];
}

/** What to tell the person who shared (privately); `confirm` asks them first. */
export interface ShareReply {
  status: 'shared' | 'already' | 'nothing' | 'confirm' | 'failed' | 'refused' | 'duplicate';
  /** Empty for a duplicate delivery: nothing to say again. */
  text: string;
}

/** One share's outcome, before it is put in words: the typed command and the shortcut say it differently. */
type ShareStep =
  | { status: 'nothing' }
  | { status: 'confirm'; names: string[]; place: 'dm' | 'private'; readers: number | undefined }
  | { status: 'done'; outcomes: IngestOutcome[] };

/** "@bot confirm share", alone in the message: the go-ahead for a share from a private place. */
export const CONFIRM_SHARE_REQUEST = /^(yes,?\s+)?confirm\s+(the\s+)?share[.!]*$/i;

/** How long a share from a private channel or a DM waits for its confirmation. */
const SHARE_CONFIRM_MINUTES = 10;

/** A share asked for in a private place, waiting for "confirm share" from the same person there. */
interface PendingShare {
  files: FileRef[];
  source: string;
}

export interface FileSharingDeps {
  botName: string;
  ingestor: Ingestor | undefined;
  state: Pick<SessionState, 'claimOnce'>;
  /** The platform's port, and what people there call a project ("workspace", "server"). */
  platform(name: string): { port: PlatformPort; settings: { projectNoun: string } };
}

export class FileSharing {
  private readonly d: FileSharingDeps;
  /**
   * Shares waiting for a confirmation, by platform, project, channel and person. Kept in this
   * process only: the files' download credentials cannot be stored, and a lost one is asked again.
   */
  private readonly pendingShares = new LRUCache<string, PendingShare>({
    max: 5000,
    ttl: SHARE_CONFIRM_MINUTES * 60_000,
  });

  constructor(d: FileSharingDeps) {
    this.d = d;
  }

  /** An erased project's shares waiting for "confirm share" in this process. */
  dropPending(p: ProjectPlace): void {
    for (const key of [...this.pendingShares.keys()])
      if (key.startsWith(`${p.platform}:${p.projectId}:`)) this.pendingShares.delete(key);
  }

  /** Reads each file for `owner`, with a reaction on `messageId` for its outcome. */
  async ingestAll(
    owner: Owner,
    files: FileRef[],
    to: Destination,
    messageId: string,
    log: Logger,
    /** Where failures and notices are told; absent: the caller tells them (reactions still go on). */
    out: ThreadOutput | undefined,
  ): Promise<IngestOutcome[]> {
    const ingestor = this.d.ingestor;
    if (!ingestor) return [];
    const { port } = this.d.platform(to.ref.platform);
    return Promise.all(
      files.map(async (file) => {
        const outcome = await ingestor.ingest(owner, incomingFile(file), () => file.download());
        await this.report(port, to, out, messageId, outcome).catch((err: unknown) =>
          log.error({ err }, 'could not tell the user about a file'),
        );
        return outcome;
      }),
    );
  }

  private async report(
    port: PlatformPort,
    to: Destination,
    out: ThreadOutput | undefined,
    messageId: string,
    outcome: IngestOutcome,
  ): Promise<void> {
    const react = (r: 'ok' | 'warning') => port.react(to, messageId, r).catch(() => undefined);
    if (outcome.status === 'failed') {
      await react('warning');
      await out?.post(messages.fileFailed(outcome.error.userMessage));
    } else if (outcome.status === 'ready') {
      await react('ok');
      if (outcome.notice) await out?.post(messages.fileNotice(outcome.notice));
    }
  }

  /**
   * "Share this with the workspace": the message's files, or else the thread's first message's.
   * From a private channel or a DM it first says who will then see them and waits for "confirm
   * share" from the same person in the same place.
   */
  async shareTyped(m: InboundMessage, out: ThreadOutput, log: Logger): Promise<void> {
    const { port, settings } = this.d.platform(m.ref.platform);
    const pendingKey = `${m.ref.platform}:${m.ref.projectId}:${m.ref.channelId}:${m.principal}`;
    let files = m.files ?? [];
    let source = m.messageId;
    const confirmed = CONFIRM_SHARE_REQUEST.test(m.text);
    if (confirmed) {
      const pending = this.pendingShares.get(pendingKey);
      this.pendingShares.delete(pendingKey);
      if (!pending) {
        await out.post(messages.nothingToConfirm(SHARE_CONFIRM_MINUTES));
        return;
      }
      log.info({ files: pending.files.length }, 'share from a private place confirmed');
      ({ files, source } = pending);
    } else if (files.length === 0) {
      for await (const first of port.readThread(m.to, { limit: 1 })) {
        files = first.files;
        source = first.id;
        break;
      }
    }
    const step = await this.shareStep({ ref: m.ref, to: m.to, files, source, confirmed }, out, log);
    if (step.status === 'nothing') {
      await out.post(messages.nothingToShare);
    } else if (step.status === 'confirm') {
      this.pendingShares.set(pendingKey, { files, source });
      await out.post(
        messages.confirmShare({
          ...step,
          project: settings.projectNoun,
          how: { reply: this.d.botName, minutes: SHARE_CONFIRM_MINUTES },
        }),
      );
    } else {
      const said = sharedText(step.outcomes, settings.projectNoun);
      if (said) await out.post(said);
    }
  }

  /**
   * "Share file with the workspace" on one message: its files become the project's, after a
   * confirmation where the message is private. Says what to tell the person (privately); file
   * outcomes are also reactions on the message.
   */
  async shareMessage(s: ShareMessageFiles, log: Logger): Promise<ShareReply> {
    const project = this.d.platform(s.ref.platform).settings.projectNoun;
    if (!(await this.d.state.claimOnce(s.dedupe))) return { status: 'duplicate', text: '' };
    if (s.confirmed && s.askedBy !== undefined && s.askedBy !== s.principal) {
      log.info({ asked_by: s.askedBy }, 'share confirmation from someone else refused');
      return { status: 'refused', text: messages.shareNotYours };
    }
    const step = await this.shareStep(
      { ref: s.ref, to: s.to, files: s.files, source: s.messageId, confirmed: s.confirmed },
      undefined,
      log,
    );
    if (step.status === 'nothing') return { status: 'nothing', text: messages.noFilesOnMessage };
    if (step.status === 'confirm')
      return {
        status: 'confirm',
        text: messages.confirmShare({ ...step, project, how: 'button' }),
      };
    const failed = step.outcomes.flatMap((o) =>
      o.status === 'failed' ? [messages.fileFailed(o.error.userMessage)] : [],
    );
    const notices = step.outcomes.flatMap((o) =>
      o.status === 'ready' && o.notice ? [messages.fileNotice(o.notice)] : [],
    );
    const noAccess = step.outcomes.some(
      (o) => o.status === 'failed' && o.error.code === 'no_access',
    );
    const said = sharedText(step.outcomes, project);
    const text = [said, ...notices, ...failed, ...(noAccess ? [messages.shareNoAccessHint] : [])]
      .filter((t) => t !== undefined)
      .join('\n');
    const status = step.outcomes.some((o) => o.status === 'ready')
      ? 'shared'
      : failed.length > 0
        ? 'failed'
        : 'already';
    log.info({ status, files: s.files.length, confirmed: s.confirmed }, 'message files shared');
    return { status, text };
  }

  /**
   * The one share both paths run: nothing to share, a confirmation needed (a private place not yet
   * confirmed), or the files read into the project (a reaction on the source message for each, and
   * with `out` a message in the thread for each failure).
   */
  private async shareStep(
    s: { ref: ThreadRef; to: Destination; files: FileRef[]; source: string; confirmed: boolean },
    out: ThreadOutput | undefined,
    log: Logger,
  ): Promise<ShareStep> {
    const { port } = this.d.platform(s.ref.platform);
    if (s.files.length === 0) return { status: 'nothing' };
    if (!s.confirmed) {
      const reach = await this.reachOf(port, s.to, log);
      if (reach !== 'public')
        return { status: 'confirm', names: s.files.map((f) => f.name), ...reach };
    }
    const outcomes = await this.ingestAll(projectOwner(s.ref), s.files, s.to, s.source, log, out);
    return { status: 'done', outcomes };
  }

  /** Where a share was asked: open to the whole project, or a DM or private channel (and its readers). */
  private async reachOf(
    port: PlatformPort,
    to: Destination,
    log: Logger,
  ): Promise<'public' | { place: 'dm' | 'private'; readers: number | undefined }> {
    try {
      if (port.reach && (await port.reach(to)) === 'public') return 'public';
      const audience = await port.audience?.(to);
      if (audience?.kind === 'dm') return { place: 'dm', readers: 1 };
      // The asker is among the members; the bot is not.
      return { place: 'private', readers: audience?.members.length };
    } catch (err) {
      // Not knowing who can read here is treated as private: the person confirms.
      log.warn({ err }, 'could not tell whether this place is private; asking before sharing');
      return { place: 'private', readers: undefined };
    }
  }
}

/** What a share says once its files are read: their names, "already shared", or nothing (all failed). */
function sharedText(outcomes: IngestOutcome[], project: string): string | undefined {
  const shared = outcomes.flatMap((o) => (o.status === 'ready' ? [o.record.filename] : []));
  if (shared.length > 0) return messages.shared(shared, project);
  if (outcomes.every((o) => o.status === 'duplicate')) return messages.alreadyShared(project);
  return undefined;
}
