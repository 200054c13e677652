// A web chat message that is a command, read against the core's commands table: `/name`, or a
// flow's `/name word` (`/feedback-export json`: the word fills the flow's format field).
import type { Intent } from '../model/incoming.ts';
import type { FlowName, FormValues } from '../model/interaction.ts';
import { webCommand } from './commands.ts';
import { FORMAT_FIELD } from './interactions/export-flow.ts';

export type WebTyped =
  | { flow: FlowName; values: FormValues }
  | { intent: Intent }
  /** A `/word` the table has no command for (as typed). */
  | { unknown: string };

/** Undefined for a message that is not a command (an intent's command with more words is words). */
export function webTypedCommand(text: string): WebTyped | undefined {
  const typed = /^\/(\S+)(?:\s+(\S+))?\s*$/.exec(text.trim());
  if (!typed) return undefined;
  const [all, name = '', word] = typed;
  const starts = webCommand(name)?.starts;
  if (starts && 'flow' in starts)
    return { flow: starts.flow, values: word ? { [FORMAT_FIELD]: word.toLowerCase() } : {} };
  if (word !== undefined) return undefined;
  return starts ? { intent: starts.intent } : { unknown: all };
}
