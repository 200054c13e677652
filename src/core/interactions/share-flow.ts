// Sharing a message's files with the whole project: typed ("@bot share this with the workspace",
// confirmed by a button or by "@bot confirm share") or used on one message (a Slack shortcut, a
// Discord message command). Where the place is not open to the whole project (a private channel, a
// DM), it first says who could then ask about the files and waits for the asker's confirmation;
// the files wait as plain data in the Store, so any replica (a worker, after a restart) goes on.
import type { IngestOutcome } from '../../attachments/ingest.ts';
import type { FileRef, QueuedFile } from '../../model/incoming.ts';
import { queuedFile } from '../../model/incoming.ts';
import type { Actor, Place, Shown } from '../../model/interaction.ts';
import { projectOwner } from '../../model/thread-ref.ts';
import type { FileSharing } from '../file-sharing.ts';
import { messages } from '../messages.ts';
import type { Flow, FlowContext, FlowResult, FlowStart, FlowStep } from './flow.ts';

/** What a confirmation keeps until it is answered: the files and the message they are on. */
export interface PendingShare {
  files: QueuedFile[];
  source: string;
}

type Reach = 'public' | { place: 'dm' | 'private'; readers: number | undefined };

/** Where a share was asked: open to the whole project, or a DM or private channel (and its readers). */
async function reachOf(
  ctx: FlowContext,
  place: Place,
  log: FlowStep<unknown>['log'],
): Promise<Reach> {
  const { port } = ctx;
  try {
    if (port.reach && (await port.reach(place.to)) === 'public') return 'public';
    const audience = await port.audience?.(place.to);
    if (audience?.kind === 'dm') return { place: 'dm', readers: 1 };
    // The asker is among the members; the bot is not.
    return { place: 'private', readers: audience?.members.length };
  } catch (err) {
    // Not knowing who can read here is treated as private: the person confirms.
    log.warn({ err }, 'could not tell whether this place is private; asking before sharing');
    return { place: 'private', readers: undefined };
  }
}

/** One line per outcome: what was shared (or already was), notices, failures, and a hint. */
function outcomeText(outcomes: IngestOutcome[], project: string): string {
  const shared = outcomes.flatMap((o) => (o.status === 'ready' ? [o.record.filename] : []));
  const said =
    shared.length > 0
      ? messages.shared(shared, project)
      : outcomes.length > 0 && outcomes.every((o) => o.status === 'duplicate')
        ? messages.alreadyShared(project)
        : undefined;
  const notices = outcomes.flatMap((o) =>
    o.status === 'ready' && o.notice ? [messages.fileNotice(o.notice)] : [],
  );
  const failed = outcomes.flatMap((o) =>
    o.status === 'failed' ? [messages.fileFailed(o.error.userMessage)] : [],
  );
  const noAccess = outcomes.some((o) => o.status === 'failed' && o.error.code === 'no_access');
  return [said, ...notices, ...failed, ...(noAccess ? [messages.shareNoAccessHint] : [])]
    .filter((t) => t !== undefined)
    .join('\n');
}

export class ShareFlow implements Flow<PendingShare> {
  readonly name = 'share' as const;
  private readonly files: Pick<FileSharing, 'ingestAll'>;

  constructor(files: Pick<FileSharing, 'ingestAll'>) {
    this.files = files;
  }

  /** Anyone may ask; only the asker may answer the confirmation. */
  async may(
    _ctx: FlowContext,
    actor: Actor,
    _step: string,
    pending: { actorId: string } | undefined,
  ): Promise<boolean> {
    return pending === undefined || pending.actorId === actor.id;
  }

  refusal(): string {
    return messages.shareNotYours;
  }

  expired(): string {
    return messages.shareExpired;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const files = [...(s.message?.files ?? [])];
    const source = s.message?.id;
    const notice = (text: string): FlowResult => ({
      show: [{ kind: 'notice', text: ctx.text(text) }],
      outcome: 'done',
    });
    if (files.length === 0 || source === undefined)
      return notice(s.via === 'message' ? messages.nothingToShare : messages.noFilesOnMessage);
    const reach = await reachOf(ctx, s.place, s.log);
    if (reach === 'public') return this.share(ctx, s.place, files, source, s.log, false);
    const typed = s.via === 'message';
    const { refs, expiresAt } = await ctx.wait<PendingShare>({
      place: s.place,
      actorId: s.actor.id,
      data: { files: files.map(queuedFile), source },
      steps: ['ok', 'no'],
      alias: typed,
    });
    const project = ctx.settings.projectNoun;
    const minutes = Math.max(1, Math.round((expiresAt - ctx.now()) / 60_000));
    const question = messages.confirmShare({
      names: files.map((f) => f.name),
      ...reach,
      project,
      how: {
        buttons: ctx.interactive,
        ...(typed ? { reply: ctx.botName } : {}),
        minutes,
      },
    });
    const shown: Shown = {
      kind: 'confirm',
      audience: typed ? 'place' : 'private',
      confirmation: {
        title: messages.shareTitle(project),
        question: ctx.text(question),
        confirm: { label: messages.shareConfirmLabel, ref: refs.ok ?? '', style: 'primary' },
        cancel: { label: messages.shareCancelLabel, ref: refs.no ?? '' },
        expiresAt,
      },
    };
    s.log.info({ files: files.length, place: reach.place }, 'share waits for its confirmation');
    return { show: [shown], outcome: 'asked' };
  }

  async step(ctx: FlowContext, step: string, s: FlowStep<PendingShare>): Promise<FlowResult> {
    if (!(await s.take())) return { show: [], outcome: 'duplicate' };
    const { place, data } = s.pending;
    if (step !== 'ok') {
      return {
        show: [{ kind: 'notice', text: ctx.text(messages.shareCancelled), replace: true }],
        outcome: 'cancelled',
      };
    }
    // The files' download credentials are this process's own, rebuilt from what was kept.
    const files = ctx.port.rehydrate?.({ ref: place.ref, files: data.files }).files ?? [];
    s.log.info({ files: files.length }, 'share from a private place confirmed');
    return this.share(ctx, place, files, data.source, s.log, true);
  }

  /**
   * Reads the files into the project, with a reaction on their message for each; `replace`: the
   * answer takes the confirmation's place.
   */
  private async share(
    ctx: FlowContext,
    place: Place,
    files: FileRef[],
    source: string,
    log: FlowStep<unknown>['log'],
    replace: boolean,
  ): Promise<FlowResult> {
    const owner = projectOwner(place.ref);
    const outcomes = await this.files.ingestAll(owner, files, place.to, source, log, undefined);
    const text = outcomeText(outcomes, ctx.settings.projectNoun);
    const shared = outcomes.flatMap((o) => (o.status === 'ready' ? [o.record.filename] : []));
    log.info({ shared: shared.length, files: files.length }, 'files shared with the project');
    return {
      show: text ? [{ kind: 'notice', text: ctx.text(text), replace }] : [],
      outcome: 'done',
      changed: { shared },
    };
  }
}
