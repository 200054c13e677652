// 👍 and 👎 under an answer, the same on every platform. An answered turn gets two buttons whose
// references name the turn's pending state (kept as long as votes are, so a press on any replica,
// after a restart, weeks later, finds it). Anyone in the project may vote, once per answer: a second
// vote replaces the first. A 👎 is stored at once, then the optional reason form asks what was
// wrong; sending it stores the reason, skipping or closing it keeps the 👎 as it was.
import type { ActionButton, Form, Place } from '../../model/interaction.ts';
import type { FeedbackService } from '../feedback.ts';
import { messages } from '../messages.ts';
import type { Flow, FlowContext, FlowResult, FlowStart, FlowStep } from './flow.ts';

/** What an answer's buttons keep: the turn they rate. */
export interface PendingVote {
  turn: string;
}

/** The reason form's field. */
export const REASON_FIELD = 'reason';

function notice(ctx: FlowContext, text: string, outcome: FlowResult['outcome']): FlowResult {
  return { show: [{ kind: 'notice', text: ctx.text(text) }], outcome };
}

export class FeedbackFlow implements Flow<PendingVote> {
  readonly name = 'feedback' as const;
  readonly leavesMessage = true;
  private readonly feedback: FeedbackService | undefined;

  /** Without a feedback service, answers carry no buttons. */
  constructor(feedback: FeedbackService | undefined) {
    this.feedback = feedback;
  }

  /** Anyone the platform let press the button (the reference is the project's own). */
  async may(): Promise<boolean> {
    return true;
  }

  refusal(): string {
    return messages.feedbackInvalid;
  }

  expired(): string {
    return messages.feedbackUnknown;
  }

  /** 👍 and 👎 for an answered turn; the answer's place is kept without its delivery details. */
  async buttons(ctx: FlowContext, place: Place, data: PendingVote): Promise<ActionButton[]> {
    if (!this.feedback) return [];
    const { refs } = await ctx.wait<PendingVote>({
      place: { ref: place.ref, to: { ref: place.ref, context: {} } },
      actorId: '',
      data,
      steps: ['up', 'down'],
      ttlMs: this.feedback.ttlMs,
    });
    return [
      { label: '👍', ref: refs.up ?? '' },
      { label: '👎', ref: refs.down ?? '' },
    ];
  }

  /** Votes begin at an answer's buttons, never by a command. */
  async start(ctx: FlowContext, _s: FlowStart): Promise<FlowResult> {
    return notice(ctx, messages.feedbackInvalid, 'invalid');
  }

  async step(ctx: FlowContext, step: string, s: FlowStep<PendingVote>): Promise<FlowResult> {
    const feedback = this.feedback;
    const reason = s.values[REASON_FIELD];
    const said = typeof reason === 'string' ? reason.trim() : '';
    // Skipping the reason (or sending none) keeps the 👎 already stored.
    if (step === 'skip' || (step === 'why' && said === ''))
      return notice(ctx, messages.feedbackStored('down', false), 'done');
    if (!feedback || !['up', 'down', 'why'].includes(step))
      return notice(ctx, messages.feedbackInvalid, 'invalid');
    const vote = step === 'up' ? 'up' : 'down';
    const { ref } = s.pending.place;
    const r = await feedback.vote({
      platform: ref.platform,
      projectId: ref.projectId,
      id: s.pending.data.turn,
      userId: s.actor.id,
      vote,
      ...(step === 'why' ? { reason: said } : {}),
    });
    if (r.status === 'unknown') return notice(ctx, messages.feedbackUnknown, 'invalid');
    if (r.status === 'invalid') return notice(ctx, messages.feedbackInvalid, 'invalid');
    const replaced = r.status === 'replaced';
    const changed = { vote, replaced, ...(step === 'why' ? { reason: true } : {}) };
    if (step === 'why') return { ...notice(ctx, messages.feedbackReasonStored, 'done'), changed };
    if (vote === 'up')
      return { ...notice(ctx, messages.feedbackStored('up', replaced), 'done'), changed };
    const refs = await ctx.refsOf(s.pending, ['why', 'skip']);
    const form: Form = {
      title: messages.feedbackTitle,
      // Where the form cannot open (a slow step), these words are what the voter sees.
      intro: ctx.text(messages.feedbackStored('down', replaced)),
      fields: [
        {
          kind: 'long',
          id: REASON_FIELD,
          label: messages.feedbackReasonPrompt,
          optional: true,
          maxLength: feedback.maxReasonChars,
        },
      ],
      submit: { label: messages.feedbackSend, ref: refs.why ?? '' },
      cancel: { label: messages.feedbackSkip, ref: refs.skip ?? '' },
    };
    return { show: [{ kind: 'form', form }], outcome: 'asked', changed };
  }
}
