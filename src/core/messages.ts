// Every text the bot itself writes into a thread, in Markdown, for every platform. The renderer
// (RenderedText.render) neutralises and converts them like model output; nothing here is sent raw.
import type { StatusKind } from '../model/platform-port.ts';
import type { SettingProblem, SettingsPatch } from './channel-settings.ts';
import type { SettingKey } from './channel-settings-schema.ts';
import type { ErasedCounts } from './project-eraser.ts';
import { describePatch, describeSettings, settingText } from './setting-texts.ts';

function utc(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const WARN = '⚠️';
const INFO = 'ℹ️';

export const messages = {
  statusWords(kind: StatusKind, thinkingText: string): string {
    return kind === 'thinking' ? thinkingText : 'is summarising this thread…';
  },
  /** A waiting question's place (fair admission, ARCHITECTURE.md "Sharing the GPU"). */
  queued(ahead: number): string {
    if (ahead === 0) return 'yours is next';
    return ahead === 1 ? '1 question ahead of yours' : `${ahead} questions ahead of yours`;
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
  /** The channel's note when the answer went to the asker alone (audience-aware knowledge). */
  answeredPrivatelyTool: `${INFO} I sent my answer privately to the person who asked: it uses a team tool whose results are private.`,
  answeredPrivately: `${INFO} I sent my answer privately to the person who asked: it draws on knowledge-base documents that not everyone in this channel may read.`,
  /** The channel's note when the answer could not be sent privately either. */
  privateUnavailable: `${WARN} My answer draws on knowledge-base documents that not everyone in this channel may read, and I cannot send private messages here. Ask me in a direct message instead.`,
  /** Heads the private copy, so the asker knows why it came this way. */
  privateAnswer(answer: string): string {
    return `${INFO} _Only you can see this answer: it draws on documents not everyone in the channel may read._\n\n${answer}`;
  },
  /** What thread history keeps of an answer sent privately: never its content. */
  privateAnswerRecord:
    '[An answer was sent privately to the person who asked, because it drew on knowledge-base documents not everyone here may read. Its content is not kept in this thread; search again if it is needed.]',
  emptyAnswer: '_The model returned an empty answer. Please rephrase your question._',
  truncated: '\n\n_(The answer was cut off at the reply length limit. Ask me to continue.)_',
  continued: '_(continued)_\n',
  /** Ends an answer that needed more messages than the platform allows here. */
  answerCutShort(max: number): string {
    return `\n\n_(The rest of this answer did not fit: here I can answer in at most ${max} messages. Ask a narrower question, or ask me where I am added to the server.)_`;
  },
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
  /**
   * Sharing from a private channel or a DM widens who can ask about the file: asked first, by the
   * confirmation's buttons (where the platform shows them) or by a reply naming the bot.
   */
  confirmShare(o: {
    names: string[];
    place: 'dm' | 'private';
    /** People who can read the private channel now (the bot left out), when known. */
    readers: number | undefined;
    project: string;
    /** `buttons`: Share / Cancel are shown; `reply`: "@<reply> confirm share" works too. */
    how: { buttons: boolean; reply?: string; minutes: number };
  }): string {
    const it = o.names.length > 1 ? 'them' : 'it';
    const now =
      o.place === 'dm'
        ? 'this direct message, where only you can see it'
        : o.readers === undefined
          ? 'a private channel'
          : `a private channel that ${o.readers === 1 ? '1 person' : `${o.readers} people`} can see`;
    const press = `Press “${messages.shareConfirmLabel}” to go ahead, or “${messages.shareCancelLabel}”`;
    const reply = o.how.reply ? `reply here with “@${o.how.reply} confirm share”` : undefined;
    const goAhead =
      o.how.buttons && reply
        ? `${press}; or ${reply}. This waits ${o.how.minutes} minutes, and nothing is shared until then.`
        : o.how.buttons
          ? `${press}; nothing is shared until you do (this waits ${o.how.minutes} minutes).`
          : `To go ahead, ${reply ?? 'confirm'} within ${o.how.minutes} minutes; otherwise nothing is shared.`;
    return `${INFO} ${o.names.join(', ')} ${o.names.length > 1 ? 'are' : 'is'} in ${now}. Shared with the whole ${o.project}, everyone in the ${o.project} can ask me about ${it} in any channel and read what I quote from ${it}. ${goAhead}`;
  },
  shareTitle(project: string): string {
    return `Share with the ${project}?`;
  },
  shareConfirmLabel: 'Share',
  shareCancelLabel: 'Cancel',
  shareCancelled: 'Cancelled: nothing was shared.',
  shareExpired:
    'That confirmation has expired, and nothing was shared. Ask me to share the file again.',
  /** The shortcut used on a message without files. */
  noFilesOnMessage: 'There are no files on that message, so there is nothing to share.',
  shareNotYours: 'Only the person who asked to share these files can confirm it.',
  shareNoAccessHint:
    'If the message is in a channel I am not a member of, add me to that channel and try again.',
  nothingToConfirm(minutes: number): string {
    return `There is no share of yours waiting for a confirmation here (one lasts ${minutes} minutes). Ask me to share the file again.`;
  },
  /** Field errors, shown under the field of a form. */
  fieldRequired: 'Fill this in.',
  fieldTooLong(max: number): string {
    return `At most ${max} characters.`;
  },
  fieldOutOfRange(min: number, max: number): string {
    return `A whole number from ${min} to ${max}.`;
  },
  fieldNotAChoice: 'Pick one of the choices.',
  /** A command that failed for a reason of its own (the details are logged). */
  commandFailed: 'Something went wrong with that command. The details are in the bot’s log.',
  /** Discord: "Ask threadmind about this" could not start a thread from the message. */
  threadNotStarted:
    'I could not start a thread from that message. Check that I may create threads here.',
  /** Discord: where the answer to "Ask threadmind about this" goes (a channel mention). */
  answeringIn(channelMention: string): string {
    return `I am answering in ${channelMention}.`;
  },
  /** Discord: `/ask` at a channel's top level, the first message of the thread it opens. */
  askedBy(name: string, question: string): string {
    return `**${name} asked:** ${question}`;
  },
  /** Discord: a command that needs the bot in the server, used through a person's own install. */
  serverOnly(command: string): string {
    return `${command} works only where threadmind is added to the server itself. Here it runs from your own install, which answers only you and cannot see or change this place's settings.`;
  },
  cannotPostHere:
    'I cannot post in this channel. Check that I have the Send Messages permission here.',
  /** A button, modal or shortcut this version has no flow for (an old message's, say). */
  interactionInactive: 'This button is no longer active.',
  unknownCommand(command: string): string {
    return `I do not know the command ${command}.`;
  },
  /** Slack: `/threadmind` with words it does not know. */
  slackCommandUsage:
    'Use `/threadmind settings` to change how I behave in this channel, or `/threadmind show` to see it. Admins: `/threadmind feedback export`, `/threadmind erase-workspace`.',
  /** A button or form whose reference is forged, altered or made for another place. */
  actionRefused:
    'I cannot act on that: it was not made here, or it was changed on the way. Nothing was changed.',
  /** A button pressed again after its answer (or after its project's data was erased). */
  actionUsed: 'That was already answered, so nothing more was done.',
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
  answerContinues: '_(I was interrupted here; the whole answer follows below.)_',
  queuedFailed:
    "I could not handle this message, even after several tries. Please send it again; the details are in the bot's log.",
  /** A setting's words (label, help, choices) on a form. */
  settingText(key: SettingKey) {
    return settingText(key);
  },
  /** The form's choice for "the configured model". */
  defaultModelChoice: 'The default model',
  settingsTitle: 'threadmind here',
  settingsSave: 'Save',
  settingsCancel: 'Cancel',
  settingsCancelled: 'Nothing was changed.',
  settingsExpired: 'That settings form has expired, and nothing was changed. Open it again.',
  /** A rejected value, under its field. */
  settingProblem(p: SettingProblem): string {
    switch (p.kind) {
      case 'range':
        return messages.fieldOutOfRange(p.min, p.max);
      case 'tooLong':
        return messages.fieldTooLong(p.max);
      case 'choice':
        return messages.fieldNotAChoice;
      case 'notServed':
        return `The model server does not serve “${p.model}”. It serves: ${p.served.join(', ') || 'nothing right now'}.`;
    }
  },
  /** Field errors told as words, where the form cannot show them (a slash command's options). */
  settingsNotSaved(problems: readonly { key: SettingKey; text: string }[]): string {
    const lines = problems.map((p) => `• ${settingText(p.key).label}: ${p.text}`);
    return `${WARN} Not saved:\n${lines.join('\n')}`;
  },
  /** The channel's settings, where each comes from, and the recent changes. */
  settings: describeSettings,
  settingsChanged(p: SettingsPatch): string {
    return `Saved: ${describePatch(p)}. It applies from the next message.`;
  },
  settingsRefused(who: string): string {
    return `Only ${who} can change how I behave in this channel.`;
  },
  feedbackStored(vote: 'up' | 'down', replaced: boolean): string {
    const what = vote === 'up' ? '👍' : '👎';
    return replaced ? `Changed your vote to ${what}. Thanks.` : `Thanks for the ${what}.`;
  },
  feedbackUnknown:
    'That answer is too old to rate (or was not recorded), so the vote was not stored.',
  feedbackInvalid: `${WARN} That vote could not be read, so it was not stored.`,
  feedbackReasonPrompt: 'What was wrong with the answer? (optional)',
  feedbackReasonStored: 'Thanks: your 👎 and what was wrong are noted.',
  feedbackTitle: 'Feedback',
  feedbackSend: 'Send',
  feedbackSkip: 'Skip',
  goodAnswer: 'Good answer',
  badAnswer: 'Not a good answer',
  /** The text of a message that carries only an answer's buttons (where a platform wants one). */
  rateAnswer: 'Rate this answer',
  /** Under an export shown inline when the platform's message holds only part of it. */
  exportCut(shown: number, total: number): string {
    return `_(cut at ${shown} characters of ${total}; export JSON or ask whoever runs threadmind for the rest)_`;
  },
  feedbackExportRefused(who: string): string {
    return `Only ${who} can export the feedback.`;
  },
  feedbackExported(rows: number, noun: string): string {
    return rows === 0
      ? `No feedback has been given in this ${noun} yet.`
      : `${rows} vote${rows === 1 ? '' : 's'} from this ${noun}, attached.`;
  },
  /** The question "Ask threadmind about this" asks about the message it was used on. */
  askAbout(author: string, at: number, question?: string): string {
    const about = `Look at the message from ${author} posted at ${utc(at)} in this conversation (and any files it has).`;
    return question
      ? `${about} ${question}`
      : `${about} Tell me briefly what it says and what matters in it, then offer to help with it.`;
  },
  eraseRefused(who: string, noun: string): string {
    return `Only ${who} can erase what threadmind stored for this ${noun}.`;
  },
  /** What an admin confirms before a project's data is erased. */
  eraseConfirm(noun: string): string {
    return (
      `This erases everything threadmind stored for this ${noun}: conversation history and ` +
      'summaries, files shared with it, channel settings and their change history, and 👍/👎 ' +
      'votes. It cannot be undone. The installation stays (uninstall the app to remove it).'
    );
  },
  erased(counts: ErasedCounts, noun: string): string {
    const n = (x: number, one: string) => `${x} ${one}${x === 1 ? '' : 's'}`;
    return (
      `Erased what threadmind stored for this ${noun}: ` +
      `${n(counts.conversations, 'conversation record')}, ${n(counts.files, 'file record')}, ` +
      `${n(counts.settings, 'settings record')}, ${n(counts.feedback, 'feedback record')} and ` +
      `${n(counts.other, 'other record')}.`
    );
  },
  eraseTitle(noun: string): string {
    return `Erase ${noun} data`;
  },
  eraseConfirmLabel: 'Erase',
  eraseCancelLabel: 'Cancel',
  eraseWordLabel(word: string): string {
    return `Type ${word} to confirm`;
  },
  eraseWrongWord(word: string): string {
    return `Type ${word} in capital letters, or press Cancel.`;
  },
  eraseCancelled: 'Nothing was erased.',
  eraseExpired: 'That confirmation has expired, and nothing was erased. Run the command again.',
  feedbackExportUsage:
    'Use `/threadmind feedback export` (CSV) or `/threadmind feedback export json`; `/feedback-export` in the web chat.',
} as const;
