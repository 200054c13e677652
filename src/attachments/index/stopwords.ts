// Stop words per language, from stopwords-iso. Its lists merge many sources, some built for web
// pages, so for the languages reviewed here (English, German, Korean) the words people search
// documents for — "information", "system", "section", "Recht", "Zeit", "시간" — are taken back out:
// BM25's idf already discounts a common word, while a dropped one can never be found.
import isoLists from 'stopwords-iso' with { type: 'json' };

const lists = isoLists as unknown as Record<string, readonly string[] | undefined>;

const KEEP: Record<string, string> = {
  en:
    'act added adopted affected affecting affects ai allow allows amount announce appear area areas ' +
    'arise ask asked asking asks associated auth available back backed backing backs backward ' +
    'begin beginning begins believe best better big bill billion bottom brief buy call caption ' +
    'case cases cause causes changes clear click computer consider contain containing contains ' +
    'copy course cry date dear describe described detail differ different early effect eight ' +
    'eighty eleven empty end ended ending ends example face faces fact facts fifteen fifth fifty ' +
    'fill find finds fire first five fix followed following follows former forty forward found ' +
    'four free front full general give given gives giving good goods great greater greatest ' +
    'group grouped grouping groups half happens help high higher highest home homepage html http ' +
    'hundred ignored immediate importance important index indicate indicated indicates ' +
    'information inner inside interest interested interesting interests invention join keep ' +
    'keeps kept keys kind know known knows large last later latest length less like line little ' +
    'long longer longest look looking looks low lower made make makes making man mean means ' +
    'member members men microsoft million miss move name necessary need needed needing needs net ' +
    'new newer newest next nine ninety noted novel null number numbers obtain obtained old older ' +
    'oldest omitted open opened opening opens opposite order ordered ordering orders page pages ' +
    'part parts past place placed places point pointed pointing points possible present ' +
    'presented presents problem problems provided provides put puts recent ref refs related ' +
    'research reserved resulted resulting results right ring room rooms round run said say says ' +
    'second seconds section see sent serious seven seventy show showed showing shown shows side ' +
    'sides significant similar site six sixty small smaller smallest specified specify state ' +
    'states stop suggest system take taken taking tell ten test text thank thanks thick thin ' +
    'thing things think third thirty thought thousand three tip today top tried tries trillion ' +
    'try turn turned turning turns tv twelve twenty two uk use used useful uses using value want ' +
    'wanted wants way ways web webpage website welcome wish words work worked working works ' +
    'world year years young younger youngest zero',
  de:
    'acht drei elf fünf neun sechs sieben vier zehn zwanzig zwei zwölf ende gott jahr jahre ' +
    'jahren mensch menschen mann mittel morgen ordnung recht rechte rechten rechter rechtes sache ' +
    'schluss suche tag tage tagen teil uhr zeit',
  ko: '시간 시각 년 월 일',
};

function build(lang: string): ReadonlySet<string> {
  const keep = new Set((KEEP[lang] ?? '').split(' '));
  // Lists hold punctuation and digits too; only words can ever reach the check.
  return new Set((lists[lang] ?? []).filter((w) => !keep.has(w) && /\p{L}/u.test(w)));
}

const cache = new Map<string, ReadonlySet<string>>();

/** The stop words of an ISO 639-1 language (empty for a language without a list). */
export function stopWordsOf(lang: string): ReadonlySet<string> {
  let set = cache.get(lang);
  if (!set) {
    set = build(lang);
    cache.set(lang, set);
  }
  return set;
}
