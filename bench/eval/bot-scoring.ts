// Scores of `npm run eval -- bot`: what the bot handed the (scripted) chat model as the result of
// `search_attachment`, per question. An `absent` question is right when the tool said NOT IN THE
// FILES; an answered one is wrong when it did, and "reached" when the tool's text names the
// labelled file and contains one of its labelled phrases (case and whitespace aside).
import { answersOf, isAnswered, type LabelledQuestion, type QuestionKind } from './labels.ts';
import { contains } from './text-match.ts';

/** The start of search_attachment's answer when nothing scored well enough. */
export const NOT_IN_FILES = 'NOT IN THE FILES';

export interface BotOutcome {
  id: string;
  kind: QuestionKind;
  /** The tool said the files do not cover the question. */
  notInFiles: boolean;
  /** Answered questions: the labelled phrase, from the labelled file, reached the model. */
  reached: boolean;
  /** Characters of tool result the model received. */
  toolChars: number;
  /** The first line of that result, to see at a glance what the model was told. */
  toolHead: string;
  /** From the question's post to the bot's turn being handled. */
  ms: number;
  /** 'answered' when a turn answered the mention; else what the bot did instead. */
  handled: string;
}

export function scoreBotAnswer(
  q: LabelledQuestion,
  toolText: string,
  how: { ms: number; handled: string },
): BotOutcome {
  const notInFiles = toolText.trimStart().startsWith(NOT_IN_FILES);
  const reached =
    isAnswered(q) &&
    !notInFiles &&
    toolText.includes(q.file) &&
    answersOf(q).some((a) => contains(toolText, a));
  const toolHead = toolText.split('\n', 1)[0]?.slice(0, 160) ?? '';
  return {
    id: q.id,
    kind: q.kind,
    notInFiles,
    reached,
    toolChars: toolText.length,
    toolHead,
    ...how,
  };
}

export interface Count {
  k: number;
  n: number;
}

export interface BotScores {
  /** Absent questions the tool answered NOT IN THE FILES. */
  absentNotInFiles: Count;
  /** Answered (lexical and paraphrase) questions wrongly told NOT IN THE FILES. */
  answeredNotInFiles: Count;
  /** Answered questions whose labelled phrase reached the model. */
  answeredReached: Count;
  /** Questions no turn answered (the bot took the mention for something else), by id. */
  unanswered: { id: string; handled: string }[];
  /** The same two, per answered kind. */
  byKind: { kind: QuestionKind; n: number; notInFiles: number; reached: number }[];
}

export function scoreBotRun(outcomes: readonly BotOutcome[]): BotScores {
  const absent = outcomes.filter((o) => o.kind === 'absent');
  const answered = outcomes.filter((o) => o.kind !== 'absent');
  const kinds = [...new Set(answered.map((o) => o.kind))];
  return {
    absentNotInFiles: { k: absent.filter((o) => o.notInFiles).length, n: absent.length },
    answeredNotInFiles: { k: answered.filter((o) => o.notInFiles).length, n: answered.length },
    answeredReached: { k: answered.filter((o) => o.reached).length, n: answered.length },
    unanswered: outcomes
      .filter((o) => o.handled !== 'answered')
      .map((o) => ({ id: o.id, handled: o.handled })),
    byKind: kinds.map((kind) => {
      const of = answered.filter((o) => o.kind === kind);
      return {
        kind,
        n: of.length,
        notInFiles: of.filter((o) => o.notInFiles).length,
        reached: of.filter((o) => o.reached).length,
      };
    }),
  };
}
