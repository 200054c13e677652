// Slack's `/threadmind <words>`, read against the core's commands table: the flow its words name,
// the word after a flow's name filling its format field (`feedback export json`), or the usage to
// tell when they name none (the feedback export's own after `feedback`).
import type { FlowName, FormValues } from '../model/interaction.ts';
import { slackCommand } from './commands.ts';
import { FORMAT_FIELD } from './interactions/export-flow.ts';
import { messages } from './messages.ts';

export type SlackTyped = { flow: FlowName; values: FormValues } | { usage: string };

export function slackTypedCommand(text: string): SlackTyped {
  const words = text.trim().toLowerCase();
  const found = slackCommand(words);
  const starts = found?.spec.starts;
  if (starts && 'flow' in starts)
    return { flow: starts.flow, values: found?.word ? { [FORMAT_FIELD]: found.word } : {} };
  const feedback = words.split(/\s+/)[0] === 'feedback';
  return { usage: feedback ? messages.feedbackExportUsage : messages.slackCommandUsage };
}
