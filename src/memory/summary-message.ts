import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';

export const SUMMARY_OPEN = '[CONVERSATION SUMMARY]';
export const SUMMARY_CLOSE = '[END SUMMARY]';
const MARK = 'threadmind_summary';

/**
 * The summary that stands in for archived turns. Role `user`, because vLLM chat templates expect
 * user/assistant turns to alternate after the system prompt; a short assistant acknowledgement
 * follows so the kept turns (which start with a person's message) still alternate.
 */
export function summaryMessages(summary: string): BaseMessage[] {
  return [
    new HumanMessage({
      content: `${SUMMARY_OPEN}\nEarlier in this thread (summarised; the full turns are archived):\n${summary.trim()}\n${SUMMARY_CLOSE}`,
      additional_kwargs: { [MARK]: true },
    }),
    new AIMessage({
      content: 'Understood. I will continue from this summary.',
      additional_kwargs: { [MARK]: true },
    }),
  ];
}

export function isSummaryMessage(m: BaseMessage): boolean {
  return m.additional_kwargs?.[MARK] === true;
}

/** The summary text inside a summary message, if this is one. */
export function summaryText(m: BaseMessage): string | undefined {
  if (!isSummaryMessage(m) || typeof m.content !== 'string' || !m.content.startsWith(SUMMARY_OPEN))
    return undefined;
  return m.content
    .slice(SUMMARY_OPEN.length, m.content.lastIndexOf(SUMMARY_CLOSE))
    .replace(/^\s*Earlier in this thread \(summarised; the full turns are archived\):\n/, '')
    .trim();
}
