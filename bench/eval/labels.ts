// The labelled question sets of `npm run eval -- retrieval`: which documents a set uploads and
// which questions it asks, each with its kind and, unless it is `absent`, the document and a short
// phrase that the passage answering it contains. Read from YAML and validated here; what a label
// must satisfy against the document's text is checked in label-checks.ts.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const QUESTION_KINDS = ['lexical', 'paraphrase', 'absent'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

export const LANGUAGES = ['en', 'de', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];

const text = z.string().trim().min(1);

const documentSchema = z
  .object({
    /** The name it is uploaded under, in documents/. */
    file: z.string().regex(/^[\w.-]+\.(md|pdf|docx)$/, 'a file name ending .md, .pdf or .docx'),
    /** For a PDF or DOCX: the Markdown in sources/ it is built from. */
    source: z.string().optional(),
    language: z.enum(LANGUAGES),
    genre: text,
  })
  .strict();

const answered = {
  id: text,
  question: text,
  file: text,
  /**
   * A phrase the answering passage contains, compared case- and whitespace-insensitively; or a
   * list of them when the document answers in more than one place (any one counts).
   */
  answer: z.union([text, z.array(text).min(1)]),
};

const questionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('lexical'), ...answered }).strict(),
  z.object({ kind: z.literal('paraphrase'), ...answered }).strict(),
  z.object({ kind: z.literal('absent'), id: text, question: text }).strict(),
]);

const setSchema = z
  .object({
    set: text,
    documents: z.array(documentSchema).min(1),
    questions: z.array(questionSchema).min(1),
  })
  .strict();

export type EvalDocument = z.infer<typeof documentSchema>;
export type LabelledQuestion = z.infer<typeof questionSchema>;
export type AnsweredQuestion = Exclude<LabelledQuestion, { kind: 'absent' }>;

export interface EvalSet {
  name: string;
  /** Where the set's documents are. */
  documentsDir: string;
  documents: EvalDocument[];
  questions: LabelledQuestion[];
}

export function isAnswered(q: LabelledQuestion): q is AnsweredQuestion {
  return q.kind !== 'absent';
}

/** The phrases any one of which shows the answer. */
export function answersOf(q: AnsweredQuestion): string[] {
  return typeof q.answer === 'string' ? [q.answer] : q.answer;
}

/** Parses a set from its YAML text; throws with every schema problem listed. */
export function parseEvalSet(yamlText: string, documentsDir: string): EvalSet {
  const parsed = setSchema.safeParse(parseYaml(yamlText));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`the label file is not valid:\n${problems.join('\n')}`);
  }
  const { set, documents, questions } = parsed.data;
  return { name: set, documentsDir, documents, questions };
}

/** The fixtures of this repository: test/fixtures/eval/<name>.yaml and its documents/. */
export const FIXTURES_DIR = path.resolve(import.meta.dirname, '../../test/fixtures/eval');
export const SET_NAMES = ['dev', 'heldout'] as const;

export async function loadEvalSet(name: string, dir: string = FIXTURES_DIR): Promise<EvalSet> {
  const file = path.join(dir, `${name}.yaml`);
  return parseEvalSet(await readFile(file, 'utf8'), path.join(dir, 'documents'));
}
