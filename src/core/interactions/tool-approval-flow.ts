// An approval card for one team-tool call: Approve once / Always in this channel / Deny. The card is
// posted by the turn (tool-approvals.ts) and waits in the Store; who may decide is the asker or an
// approver from config, asked at the click. A decision is taken once, click or expiry, on any
// worker; the card's buttons go and the thread's turn resumes with the outcome.
import type { ActionButton, Actor, Place } from '../../model/interaction.ts';
import type { ChannelSettingsService } from '../channel-settings.ts';
import { namesIn } from '../channel-settings-schema.ts';
import { summariseArgs, approvalTexts as t } from '../tool-approval-texts.ts';
import type { PendingApproval, ToolApprovals } from '../tool-approvals.ts';
import type { Flow, FlowContext, FlowResult, FlowStart, FlowStep } from './flow.ts';
import type { PendingFlow } from './pending-flows.ts';

/** The groups (knowledge ACL principals) a person belongs to, for `mcp.approvers`. */
export type GroupsOf = (place: Place, userId: string) => Promise<readonly string[]>;

export class ToolApprovalFlow implements Flow<PendingApproval> {
  readonly name = 'approval' as const;
  readonly #approvals: ToolApprovals;
  readonly #settings: ChannelSettingsService;
  readonly #groupsOf: GroupsOf;

  constructor(approvals: ToolApprovals, settings: ChannelSettingsService, groupsOf: GroupsOf) {
    this.#approvals = approvals;
    this.#settings = settings;
    this.#groupsOf = groupsOf;
  }

  async buttons(ctx: FlowContext, place: Place, data: PendingApproval): Promise<ActionButton[]> {
    const { refs } = await ctx.wait<PendingApproval>({
      place,
      actorId: data.asker,
      data,
      steps: ['once', 'always', 'deny'],
      ttlMs: this.#approvals.ttlMs,
    });
    return [
      { label: t.once, ref: refs.once ?? '', style: 'primary' },
      { label: t.always, ref: refs.always ?? '' },
      { label: t.deny, ref: refs.deny ?? '', style: 'danger' },
    ];
  }

  async may(
    _ctx: FlowContext,
    actor: Actor,
    step: string,
    pending: PendingFlow<PendingApproval> | undefined,
  ): Promise<boolean> {
    if (step === 'start' || !pending) return false;
    const groups =
      actor.id === pending.data.asker ? [] : await this.#groupsOf(pending.place, actor.id);
    return this.#approvals.mayDecide(actor.id, groups, pending.data.asker);
  }

  refusal(): string {
    return t.refusal;
  }

  expired(): string {
    return t.gone;
  }

  /** Cards are posted by a turn, never begun by a command. */
  async start(ctx: FlowContext, _s: FlowStart): Promise<FlowResult> {
    return { show: [{ kind: 'notice', text: ctx.text(t.gone) }], outcome: 'invalid' };
  }

  async step(ctx: FlowContext, step: string, s: FlowStep<PendingApproval>): Promise<FlowResult> {
    const { place, data, key } = s.pending;
    const gone: FlowResult = {
      show: [{ kind: 'notice', text: ctx.text(t.gone) }],
      outcome: 'refused',
    };
    if (!['once', 'always', 'deny'].includes(step)) return gone;
    if (!(await s.take()) || !(await this.#approvals.claimDecision(place, key))) return gone;
    const name = data.call.name;
    let said: string;
    let resume: string;
    if (step === 'deny') {
      said = t.denied(name, s.actor.id);
      resume = t.resumeRefused(name, 'denied');
    } else {
      if (step === 'always') {
        const now = await this.#settings.effective(place.ref);
        const list = namesIn(now.settings.mcpAlwaysApproved);
        if (!list.includes(name))
          await this.#settings.change(
            place.ref,
            { id: s.actor.id, mayChange: true },
            {
              mcpAlwaysApproved: [...list, name].join(' '),
            },
          );
      }
      await this.#approvals.grantOnce(place, data);
      said = t.approved(name, s.actor.id, step === 'always');
      resume = t.resumeApproved(name, summariseArgs(data.call.args));
    }
    await this.#approvals.resume?.(place, data, resume, `mcp-decided:${key}`);
    return {
      show: [{ kind: 'card', card: { text: ctx.text(said) }, audience: 'place', replace: true }],
      outcome: step === 'deny' ? 'cancelled' : 'done',
      changed: { tool: name, decision: step },
    };
  }
}
