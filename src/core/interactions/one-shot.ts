// What the flows without steps share (files, forget, ask-about): they act when started, so a later
// press of anything of theirs is an action already used, and by default anyone may start them.
import { messages } from '../messages.ts';
import type { FlowContext, FlowResult } from './flow.ts';

export abstract class OneShotFlow {
  async may(..._args: unknown[]): Promise<boolean> {
    return true;
  }

  refusal(..._args: unknown[]): string {
    return messages.actionUsed;
  }

  expired(): string {
    return messages.actionUsed;
  }

  /** It has no steps. */
  async step(ctx: FlowContext): Promise<FlowResult> {
    return { show: [{ kind: 'notice', text: ctx.text(messages.actionUsed) }], outcome: 'refused' };
  }
}
