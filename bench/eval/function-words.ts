// Words of 4+ letters that carry no content (pronouns, auxiliaries, conjunctions, prepositions,
// question words), per language. Short on purpose: a word missing here counts as content, which only
// makes the paraphrase check stricter. Library stop-word lists are far longer (they drop "problem",
// "information", "website", …) and would let a paraphrase question reuse the answer's words.
import type { Language } from './labels.ts';

const EN = `about above after again against also although always among another anyone anything
because been before being below between both cannot could does doing done down during each either
else even ever every from further have having here hers herself himself into itself just many mine
more most much must myself never only other others ought ours ourselves over same shall should
some such than that their theirs them themselves then there these they this those though through
under until upon very were what whatever when where whether which while whom whose will with
within without would your yours yourself yourselves once like`;

const DE = `aber alle allem allen aller alles also auch beim bereits bevor bitte dabei dafür damit dann
darf darauf daran davon dazu dass daß dein deine deinem deinen deiner dessen diese diesem diesen
dieser dieses doch dort durch eine einem einen einer eines etwa etwas euch euer eure gegen habe
haben hast hatte hier ihnen ihre ihrem ihren ihrer ihres immer indem jede jedem jeden jeder jedes
kann kannst kein keine keinem keinen keiner können könnte mehr mein meine meinem meinen meiner mich
muss musst müssen nach nicht noch nein oder ohne schon sehr sein seine seinem seinen seiner selbst
sich sind soll sollen sollte sondern über unter viel vom wann warum weil welche welchem welchen
welcher welches wenn werde werden wessen wieder will wird wurde wäre zwischen gibt`;

const KO = `그리고 그러나 하지만 그래서 그러면 어떻게 어떤 무엇 무엇을 무엇이 무엇인가요 있습니다 있나요 합니다
하나요 입니다 언제 누가 어디 어디서 왜 정도 얼마나 대한 위해 통해 때문에 경우 경우에는`;

const words = (s: string) => new Set(s.split(/\s+/).filter(Boolean));

export const FUNCTION_WORDS: Record<Language, ReadonlySet<string>> = {
  en: words(EN),
  de: words(DE),
  ko: words(KO),
};
