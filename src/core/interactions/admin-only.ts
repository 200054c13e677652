// What the admin-only reports (feedback export, usage) share: only an admin may start one, only
// while its service runs, and anyone else is told privately who may.
import type { Actor } from '../../model/interaction.ts';
import { messages } from '../messages.ts';
import type { FlowContext } from './flow.ts';

export abstract class AdminOnlyFlow {
  /** Whether the service behind the report runs here; without it everyone is refused. */
  protected abstract get available(): boolean;

  async may(_ctx: FlowContext, actor: Actor): Promise<boolean> {
    return this.available && actor.may('admin');
  }

  refusal(ctx: FlowContext): string {
    return messages.feedbackExportRefused(
      ctx.settings.feedbackAdmins ?? ctx.settings.settingsAdmins,
    );
  }

  expired(): string {
    return messages.actionUsed;
  }
}
