// Feedback export: an admin gets the project's votes as a file (CSV, or JSON when asked). The
// platform says who is an admin; the flow asks it. Anyone else is told privately who may.
import type { ExportFormat, FeedbackService } from '../feedback.ts';
import { messages } from '../messages.ts';
import { AdminOnlyFlow } from './admin-only.ts';
import type { Flow, FlowContext, FlowResult, FlowStart } from './flow.ts';

/** The form value (a command's option) that picks the format. */
export const FORMAT_FIELD = 'format';

export class ExportFlow extends AdminOnlyFlow implements Flow<never> {
  readonly name = 'export' as const;
  private readonly feedback: FeedbackService | undefined;

  /** Without a feedback service there is nothing to export, and everyone is refused. */
  constructor(feedback: FeedbackService | undefined) {
    super();
    this.feedback = feedback;
  }

  protected get available(): boolean {
    return this.feedback !== undefined;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const asked = s.values[FORMAT_FIELD] ?? 'csv';
    if (asked !== 'csv' && asked !== 'json')
      return {
        show: [{ kind: 'notice', text: ctx.text(messages.feedbackExportUsage) }],
        outcome: 'invalid',
      };
    const { ref } = s.place;
    const file = await (this.feedback as FeedbackService).export(
      ref.platform,
      ref.projectId,
      asked satisfies ExportFormat,
    );
    const text = ctx.text(messages.feedbackExported(file.rows, ctx.settings.projectNoun));
    s.log.info({ project: ref.projectId, rows: file.rows }, 'feedback exported');
    return {
      show: [
        file.rows === 0
          ? { kind: 'notice', text }
          : { kind: 'file', text, file: { name: file.filename, body: file.body } },
      ],
      outcome: 'done',
      changed: { rows: file.rows },
    };
  }

  /** An export has no steps. */
  async step(ctx: FlowContext): Promise<FlowResult> {
    return { show: [{ kind: 'notice', text: ctx.text(messages.actionUsed) }], outcome: 'refused' };
  }
}
