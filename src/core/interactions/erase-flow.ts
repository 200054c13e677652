// An admin erases everything threadmind stored for the project (ARCHITECTURE.md, "Erasing a
// project"). The platform says who is an admin; the flow asks it at the start and again at the
// confirmation. A click is not enough: the admin types ERASE (a Slack modal, a Discord modal opened
// from the Erase button, a field on the web page). Cancel, closing the modal, a wrong word or an
// expired confirmation erase nothing.

import type { Actor, Confirmation, FormValues } from '../../model/interaction.ts';
import { TYPED_WORD_FIELD } from '../../model/interaction.ts';
import { messages } from '../messages.ts';
import type { ProjectEraser } from '../project-eraser.ts';
import type { Flow, FlowContext, FlowResult, FlowStart, FlowStep } from './flow.ts';
import type { PendingFlow } from './pending-flows.ts';

/** What the admin types. */
export const ERASE_WORD = 'ERASE';

type Steps = Record<'ok' | 'no', string>;

export class EraseFlow implements Flow<Record<string, never>> {
  readonly name = 'erase' as const;
  private readonly eraser: ProjectEraser | undefined;

  /** Without an eraser (a deployment that cannot erase) everyone is refused. */
  constructor(eraser: ProjectEraser | undefined) {
    this.eraser = eraser;
  }

  /** An admin, asked again at every step; a confirmation is its asker's. */
  async may(
    _ctx: FlowContext,
    actor: Actor,
    _step: string,
    pending: PendingFlow | undefined,
  ): Promise<boolean> {
    if (this.eraser === undefined) return false;
    if (pending !== undefined && pending.actorId !== actor.id) return false;
    return actor.may('admin');
  }

  refusal(ctx: FlowContext): string {
    const s = ctx.settings;
    return messages.eraseRefused(
      s.eraseAdmins ?? s.feedbackAdmins ?? s.settingsAdmins,
      s.projectNoun,
    );
  }

  expired(): string {
    return messages.eraseExpired;
  }

  private confirmation(ctx: FlowContext, refs: Steps, expiresAt: number): Confirmation {
    const noun = ctx.settings.projectNoun;
    return {
      title: messages.eraseTitle(noun),
      question: ctx.text(messages.eraseConfirm(noun)),
      confirm: { label: messages.eraseConfirmLabel, ref: refs.ok, style: 'danger' },
      cancel: { label: messages.eraseCancelLabel, ref: refs.no },
      expiresAt,
      typedWord: { word: ERASE_WORD, label: messages.eraseWordLabel(ERASE_WORD) },
    };
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const { refs, expiresAt } = await ctx.wait({
      place: s.place,
      actorId: s.actor.id,
      data: {},
      steps: ['ok', 'no'],
    });
    const steps = { ok: refs.ok ?? '', no: refs.no ?? '' };
    return {
      show: [
        {
          kind: 'confirm',
          audience: 'private',
          confirmation: this.confirmation(ctx, steps, expiresAt),
        },
      ],
      outcome: 'asked',
    };
  }

  async step(
    ctx: FlowContext,
    step: string,
    s: FlowStep<Record<string, never>>,
  ): Promise<FlowResult> {
    if (step === 'ok') {
      const typed = typedWord(s.values);
      // Not typed yet (Discord's Erase button opens the modal), or typed wrong: asked again.
      if (typed !== ERASE_WORD) return this.again(ctx, s.pending, typed !== undefined);
    }
    if (!(await s.take())) return { show: [], outcome: 'duplicate' };
    if (step !== 'ok')
      return {
        show: [{ kind: 'notice', text: ctx.text(messages.eraseCancelled), replace: true }],
        outcome: 'cancelled',
      };
    const project = s.pending.place.ref;
    const counts = await (this.eraser as ProjectEraser).erase(
      project,
      ctx.settings.erasePreserves?.(project.projectId) ?? [],
    );
    const keys = Object.values(counts).reduce((a, b) => a + b, 0);
    s.log.info(
      { project: project.projectId, at: new Date(ctx.now()).toISOString(), keys, counts },
      'project data erased',
    );
    return {
      show: [
        {
          kind: 'notice',
          text: ctx.text(messages.erased(counts, ctx.settings.projectNoun)),
          replace: true,
        },
      ],
      outcome: 'done',
      changed: { keys },
    };
  }

  /** The confirmation once more, with the typed word's problem when there was a word. */
  private async again(ctx: FlowContext, pending: PendingFlow, wrong: boolean): Promise<FlowResult> {
    const refs = await ctx.refsOf(pending, ['ok', 'no']);
    const confirmation = this.confirmation(
      ctx,
      { ok: refs.ok ?? '', no: refs.no ?? '' },
      pending.expiresAt,
    );
    return {
      show: [
        {
          kind: 'confirm',
          audience: 'private',
          confirmation,
          ...(wrong ? { errors: { [TYPED_WORD_FIELD]: messages.eraseWrongWord(ERASE_WORD) } } : {}),
        },
      ],
      outcome: wrong ? 'invalid' : 'asked',
    };
  }
}

function typedWord(values: FormValues): string | undefined {
  const v = values[TYPED_WORD_FIELD];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}
