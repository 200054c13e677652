// What a message asks for: a command names it; for a mention, the core reads it from the words
// ("@bot summarize", "@bot forget this thread": the commands table's `words`; "@bot share this
// with the workspace").
import type { InboundMessage, Intent } from '../model/incoming.ts';
import type { FlowName } from '../model/interaction.ts';
import { mentionCommand } from './commands.ts';
import { CONFIRM_SHARE_REQUEST } from './file-sharing.ts';

/** What a message asks for: a command says it; a mention's text may ("@bot summarize"). */
export function intentOf(m: InboundMessage): Intent {
  if (m.intent) return m.intent;
  if (m.addressed === 'ambient') return 'ask';
  const command = mentionCommand(m.text);
  const typed =
    command && ('intent' in command.starts ? command.starts.intent : TYPED[command.starts.flow]);
  if (typed) return typed;
  if (SHARE_REQUEST.test(m.text) || CONFIRM_SHARE_REQUEST.test(m.text)) return 'share';
  return 'ask';
}

/** The flows a mention's words may begin, as what the conversation does with them. */
const TYPED: Partial<Record<FlowName, Intent>> = { files: 'files', forget: 'forget' };

/**
 * "@bot share this with the workspace" (and close variants): a request, alone in the message, to
 * share what was posted here (a Slack mention may lead: file intake reads the raw text). A question that merely mentions sharing ("can I share my login with
 * my team?") is a question for the model.
 */
export const SHARE_REQUEST =
  /^(<@[A-Z0-9]+>[\s,:]*)*(please\s+)?(can\s+you\s+|could\s+you\s+)?share\s+(this|that|it|these|those|(the|this|that|these|my)\s+(file|files|document|documents|doc|docs|pdf|attachment|attachments|upload|uploads))\s+(with|to)\s+(the\s+)?(whole\s+)?(workspace|team|server|everyone|everybody|company)(\s+please)?[\s.!?]*$/i;
