// Every text the bot itself writes into a thread, in Markdown, for every platform. The renderer
// (RenderedText.render) neutralises and converts them like model output; nothing here is sent raw.
import type { StatusKind } from '../model/platform-port.ts';

const WARN = '⚠️';
const INFO = 'ℹ️';

export const messages = {
  statusWords(kind: StatusKind, thinkingText: string): string {
    return kind === 'thinking' ? thinkingText : 'is summarising this thread…';
  },
  /** A status shown as a message where the platform has no status line of its own. */
  placeholder(words: string): string {
    return `_${words}_`;
  },
  error(userMessage: string): string {
    return `${WARN} ${userMessage}`;
  },
  /** Appended to an answer that failed part-way, so what was said stays above it. */
  answerFailed(userMessage: string): string {
    return `\n\n${WARN} ${userMessage}`;
  },
  emptyAnswer: '_The model returned an empty answer. Please rephrase your question._',
  truncated: '\n\n_(The answer was cut off at the reply length limit. Ask me to continue.)_',
  continued: '_(continued)_\n',
  queueFull(max: number): string {
    return `I already have ${max} messages waiting in this thread. Please wait for my answers before sending more.`;
  },
  shuttingDown: 'I am restarting right now. Please send that again in a minute.',
  emptyMention(botName: string): string {
    return `Hi! Ask me something in the same message, for example: “@${botName} what does this error mean?”`;
  },
  summaryHeading(reason: 'compressed' | 'requested'): string {
    return reason === 'compressed'
      ? '**Summary of this thread so far** — I summarised the earlier messages to stay within my context window. This is what I will work from (the full messages are archived):'
      : '**Summary of this thread so far:**';
  },
  summary(summary: string, reason: 'compressed' | 'requested'): string {
    return `${messages.summaryHeading(reason)}\n\n${summary}`;
  },
  nothingToSummarize: 'There is nothing to summarise in this thread yet.',
  summaryFailed: 'I could not write a summary just now. Please try again.',
  fileFailed(userMessage: string): string {
    return `${WARN} ${userMessage}`;
  },
  fileNotice(notice: string): string {
    return `${INFO} ${notice}`;
  },
  nothingToShare:
    'There is no file in your message or at the start of this thread to share. Attach the file to the message that asks me to share it.',
  shared(names: string[], project: string): string {
    return `Shared ${names.join(', ')} with the whole ${project}: anyone can ask me about ${names.length > 1 ? 'them' : 'it'} in any channel.`;
  },
  alreadyShared(project: string): string {
    return `That is already shared with the ${project}.`;
  },
  forgotten: 'Done: I have forgotten this thread, its history and the files posted in it.',
  forgetRefused: 'Only the person who started this thread can make me forget it.',
  noFiles: 'I cannot see any files here yet. Attach one to a message or to /ask.',
  fileList(lines: string[]): string {
    return `Files I can see here:\n${lines.map((l) => `• ${l}`).join('\n')}`;
  },
  lockLost:
    'Another copy of me took over this thread while I was answering, so I stopped. Please ask again if my answer is missing.',
  handlingFailed:
    "Something went wrong while handling that message. The details are in the bot's log.",
  sessionBusy: 'I am still busy with this thread elsewhere. Please try again in a moment.',
} as const;
