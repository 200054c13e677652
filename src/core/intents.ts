// What a message asks for: a command names it; for a mention, the core reads it from the words
// ("@bot summarize", "@bot forget this thread", "@bot share this with the workspace").
import type { InboundMessage, Intent } from '../model/incoming.ts';
import { CONFIRM_SHARE_REQUEST } from './file-sharing.ts';

/** What a message asks for: a command says it; a mention's text may ("@bot summarize"). */
export function intentOf(m: InboundMessage): Intent {
  if (m.intent) return m.intent;
  if (m.addressed === 'ambient') return 'ask';
  if (SUMMARIZE_REQUEST.test(m.text)) return 'summarize';
  if (FORGET_REQUEST.test(m.text)) return 'forget';
  if (FILES_REQUEST.test(m.text)) return 'files';
  if (SHARE_REQUEST.test(m.text) || CONFIRM_SHARE_REQUEST.test(m.text)) return 'share';
  return 'ask';
}

/** "@bot summarize" (or summarise, tl;dr), alone in the message. */
const SUMMARIZE_REQUEST =
  /^(please\s+)?(summari[sz]e|tl;?dr)(\s+(this|the)(\s+thread)?)?\s*(please)?[.!?]*$/i;

/** "@bot forget this thread", alone in the message. */
const FORGET_REQUEST =
  /^(please\s+)?forget\s+(this|the)(\s+(thread|conversation))?\s*(please)?[.!]*$/i;

/** "@bot which files can you see?" (and close variants), alone in the message. */
const FILES_REQUEST =
  /^(list\s+(the\s+)?files|(what|which)\s+files\s+(can|do)\s+you\s+see\??|files\??)$/i;

/**
 * "@bot share this with the workspace" (and close variants): a request, alone in the message, to
 * share what was posted here (a Slack mention may lead: file intake reads the raw text). A question that merely mentions sharing ("can I share my login with
 * my team?") is a question for the model.
 */
export const SHARE_REQUEST =
  /^(<@[A-Z0-9]+>[\s,:]*)*(please\s+)?(can\s+you\s+|could\s+you\s+)?share\s+(this|that|it|these|those|(the|this|that|these|my)\s+(file|files|document|documents|doc|docs|pdf|attachment|attachments|upload|uploads))\s+(with|to)\s+(the\s+)?(whole\s+)?(workspace|team|server|everyone|everybody|company)(\s+please)?[\s.!?]*$/i;
