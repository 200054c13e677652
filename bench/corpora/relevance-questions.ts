// Questions about bench/corpora/relevance-docs.ts, written for calibrating the relevance floors:
// `lexical` shares the answer's key words, `paraphrase` asks in other words, `absent` is answered
// by no document (several on purpose share a word with one). `phrase` is a piece of the answering
// passage. Alternate questions of each kind are the fit half and the held-out half.

export type QuestionKind = 'lexical' | 'paraphrase' | 'absent';

export interface CalibrationQuestion {
  kind: QuestionKind;
  q: string;
  /** The answering document's id and a phrase its answering passage contains (not for absent). */
  doc?: string;
  phrase?: string;
}

const L = (doc: string, q: string, phrase: string): CalibrationQuestion => ({
  kind: 'lexical',
  q,
  doc,
  phrase,
});
const P = (doc: string, q: string, phrase: string): CalibrationQuestion => ({
  kind: 'paraphrase',
  q,
  doc,
  phrase,
});
const A = (q: string): CalibrationQuestion => ({ kind: 'absent', q });

export const CALIBRATION_QUESTIONS: CalibrationQuestion[] = [
  L(
    'it',
    'How long is a VPN session before it must be renewed?',
    'Sessions end after twelve hours',
  ),
  L('it', 'How many wrong password attempts lock the account?', 'After five wrong attempts'),
  L('it', 'When are laptops replaced?', 'replaced every four years'),
  L('it', 'What is the on-call response time at night?', 'thirty minutes at night'),
  L('terms', 'Can annual plans be refunded?', 'refunded in full'),
  L('terms', 'How long is customer data kept after the account is closed?', 'forty-five days'),
  L('terms', 'Which law governs these terms?', 'laws of Ireland'),
  L('terms', 'What monthly availability does Harbor aim for?', '99.9 percent'),
  L('api', 'How many requests per minute can a token make?', '600 requests per minute'),
  L('api', 'What does status 409 mean?', '409 that it was changed'),
  L('api', 'How are webhook deliveries signed?', 'HMAC-SHA256'),
  L('api', 'How many items does a list endpoint return per page?', 'at most 100 items'),
  L('haus', 'Wann ist Nachtruhe im Haus?', '22 Uhr bis 6 Uhr'),
  L('haus', 'Wie hoch ist die Kaution?', 'drei Nettokaltmieten'),
  L('haus', 'Wann wird der Restmüll abgeholt?', 'dienstags abgeholt'),
  L('haus', 'Darf ich einen Hund halten?', 'Hunde und Katzen'),
  L('haus', 'Wann darf ich in der Wohnung bohren?', 'zwischen 8 und 19 Uhr'),
  L('ko', '연차휴가는 며칠인가요?', '15일의 연차휴가'),
  L('ko', '재택근무는 일주일에 몇 번 가능한가요?', '주 2회'),
  L('ko', '결혼하면 경조휴가는 며칠인가요?', '본인 결혼 시 5일'),
  L('ko', '연장근무는 한 주에 몇 시간까지 가능한가요?', '12시간을 넘을 수 없다'),
  P('it', "How can I reach internal systems while I'm travelling?", 'corporate VPN'),
  P(
    'it',
    'Do I have to change my login secret every few months?',
    'no longer expire on a schedule',
  ),
  P(
    'it',
    'Will the company pay for furniture I buy for working remotely?',
    'claim up to 300 pounds',
  ),
  P('it', 'What should I do if my computer got hacked?', 'disconnect it from the network'),
  P('it', 'I left my work computer on the train, what now?', 'erased remotely the same day'),
  P(
    'terms',
    'How do I get my money back if I quit the yearly subscription after two weeks?',
    'refunded in full',
  ),
  P('terms', 'What happens when my card is declined?', 'retries it three times'),
  P('terms', 'If the platform is down for hours, do we get compensated?', 'service credit'),
  P('terms', 'Where would a lawsuit be heard?', 'courts of Dublin'),
  P('api', 'How do I fetch the next batch of results?', 'next_cursor'),
  P('api', "How long should I wait when I'm being throttled?", 'Retry-After'),
  P('api', 'Do access keys stop working after some time?', 'Tokens do not expire'),
  P('api', 'How can I verify that a callback really came from Orbit?', 'HMAC-SHA256'),
  P(
    'haus',
    'Wie lange vorher muss ich Bescheid geben, wenn ich ausziehen will?',
    'Frist von drei Monaten',
  ),
  P('haus', 'Wie warm muss es im Winter in der Wohnung sein?', 'mindestens 20 Grad'),
  A('What is the wifi password for the guest network?'),
  A('Who is the CEO of Northwind?'),
  A('What is the dress code in the office?'),
  A('Does Harbor offer a discount for non-profit organisations?'),
  A('How do I delete a webhook endpoint?'),
  A('Which programming languages have an official Orbit SDK?'),
  A('Is there a GraphQL endpoint?'),
  A('Wie hoch ist die monatliche Miete?'),
  A('Darf man im Hof grillen?'),
  A('Wo ist der Fahrradkeller?'),
  A('회사 주차장은 어디에 있나요?'),
  A('How do I book a meeting room?'),
  A('What is the travel reimbursement rate per mile?'),
  A('What is the shell script to restart the server?'),
  A('How much does the premium support plan cost?'),
  A('Who approves purchases above 10,000 euros?'),
];
