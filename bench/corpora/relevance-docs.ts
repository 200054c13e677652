// Documents written for calibrating the attachment search's relevance floors (bench/relevance-
// bench.ts). Invented organisations, written for this repository; not the retrieval evaluation's
// documents, which this calibration never sees.
import type { ExtractedSection } from '../../src/attachments/types.ts';

export interface CalibrationDoc {
  id: string;
  filename: string;
  sections: ExtractedSection[];
}

const s = (heading: string, text: string): ExtractedSection => ({ heading, text });

export const CALIBRATION_DOCS: CalibrationDoc[] = [
  {
    id: 'it',
    filename: 'northwind-it-handbook.md',
    sections: [
      s(
        'VPN access',
        'Everyone who works away from the office connects through the corporate VPN. Install the Northwind Connect client from the self-service portal, then sign in with your directory account. The first connection asks you to enrol a second factor; the authenticator app is preferred, hardware keys are available from the service desk. Sessions end after twelve hours and must be renewed. Split tunnelling is disabled, so all traffic leaves through the data centre in Leeds.',
      ),
      s(
        'Passwords',
        'Directory passwords must be at least fourteen characters long and are checked against a list of leaked passwords when you set them. They no longer expire on a schedule; you change one only when you suspect it was exposed. After five wrong attempts the account locks for fifteen minutes. Never reuse your directory password for outside services, and store shared credentials in the team vault rather than in documents or chat.',
      ),
      s(
        'Laptops',
        'Laptops are replaced every four years, or earlier when a repair would cost more than half the price of a new machine. Order a replacement through the portal; the old laptop must be handed back within two weeks so its disk can be wiped. Lost or stolen devices are reported to the service desk at once, and the device is erased remotely the same day. Personal software may be installed only from the approved catalogue.',
      ),
      s(
        'Equipment expenses',
        'Staff working from home may claim up to 300 pounds every two years for a chair, a desk or a monitor. Submit the receipt in the expenses tool within sixty days of purchase; claims are paid with the next monthly salary. Items bought with this allowance remain yours. Headsets and docking stations are not claimed this way: they are ordered from the service desk like any other hardware.',
      ),
      s(
        'On-call',
        'Engineering teams share a weekly on-call rotation that starts on Monday at ten in the morning. The person on call must be able to respond within fifteen minutes during the day and thirty minutes at night. Each week on call is compensated with a flat payment and a day off in lieu, taken within the following month. Swaps are arranged between colleagues and recorded in the rota before the week begins.',
      ),
      s(
        'Incidents',
        'A security incident is reported in the incident channel and by phone to the duty manager, whatever the hour. Do not try to investigate a compromised machine yourself: disconnect it from the network, leave it switched on, and wait for the response team. Every incident receives a severity from one to four within an hour, and incidents of severity one or two get a written review within five working days.',
      ),
    ],
  },
  {
    id: 'terms',
    filename: 'harbor-cloud-terms.pdf',
    sections: [
      {
        page: 1,
        text: 'Harbor Cloud Terms of Service. These terms govern the use of the Harbor Cloud hosting platform by the customer named in the order form. By creating an account the customer accepts these terms on behalf of its organisation. Harbor may change the terms with thirty days notice by e-mail; continued use after that period means acceptance of the new version.',
      },
      {
        page: 2,
        text: 'Fees and billing. Subscriptions are billed monthly in advance to the card on file, and usage above the plan is billed in arrears at the rates on the price list. Invoices are payable within fourteen days. If a payment fails, Harbor retries it three times over ten days and then suspends the account until the balance is settled. Prices exclude value added tax.',
      },
      {
        page: 3,
        text: 'Cancellation and refunds. The customer may cancel at any time from the billing page; cancellation takes effect at the end of the current billing period. Annual plans cancelled within the first thirty days are refunded in full; after that, fees already paid are not refundable. Credits granted under the service level agreement are applied to the next invoice and are never paid out in cash.',
      },
      {
        page: 4,
        text: 'Service levels. Harbor aims for 99.9 percent monthly availability of the hosting platform, excluding announced maintenance windows. When availability falls below that level, the customer may request a service credit of ten percent of the monthly fee for each full hour below it, up to half of the monthly fee. Requests must reach support within thirty days of the end of the affected month.',
      },
      {
        page: 5,
        text: 'Data and deletion. Customer data stays in the region chosen at sign-up. After the account is closed, Harbor keeps the data for forty-five days so that it can be exported, and then deletes it, including backups, within a further ninety days. Harbor may keep invoices and records that the law requires it to keep.',
      },
      {
        page: 6,
        text: 'Liability and law. Neither party is liable for indirect or consequential losses. Harbor’s total liability in any twelve months is limited to the fees paid by the customer in that period. These terms are governed by the laws of Ireland, and the courts of Dublin have exclusive jurisdiction over any dispute arising from them.',
      },
    ],
  },
  {
    id: 'api',
    filename: 'orbit-api-reference.md',
    sections: [
      s(
        'Authentication',
        'Every request carries a bearer token in the Authorization header. Tokens are created in the developer console and belong to one project; a token can be read-only or read-write. Tokens do not expire, but they can be revoked at any time, and a revoked token is refused within a minute on every region.',
      ),
      s(
        'Rate limits',
        'Each token may make 600 requests per minute. Requests above the limit receive status 429 with a Retry-After header giving the number of seconds to wait. Bulk endpoints count as ten requests each. Limits are counted per token, not per IP address, so spreading calls over several machines does not raise them.',
      ),
      s(
        'Pagination',
        'List endpoints return at most 100 items per page. The response holds a next_cursor field; pass it as the cursor parameter to get the following page, and stop when next_cursor is null. Cursors stay valid for twenty-four hours. Items are ordered by creation time, oldest first, unless the order parameter says otherwise.',
      ),
      s(
        'Errors',
        'Errors are returned as JSON with a code and a message. Status 400 means the request was malformed, 401 that the token is missing or revoked, 403 that the token lacks the scope, 404 that the object does not exist, and 409 that it was changed by someone else since you read it. Status 500 and 503 are safe to retry with exponential backoff.',
      ),
      s(
        'Webhooks',
        'Webhooks deliver events to an HTTPS address you register. Each delivery is signed with HMAC-SHA256 using the endpoint secret, in the Orbit-Signature header; reject deliveries whose signature does not match. A delivery that does not receive a 2xx answer within ten seconds is retried for up to three days with growing intervals, and then dropped.',
      ),
    ],
  },
  {
    id: 'haus',
    filename: 'hausordnung-lindenhof.docx',
    sections: [
      s(
        'Ruhezeiten',
        'Im Haus gilt werktags von 22 Uhr bis 6 Uhr und an Sonn- und Feiertagen ganztägig Nachtruhe. Auch in der Mittagszeit zwischen 13 und 15 Uhr ist Rücksicht zu nehmen. Musik und Fernseher sind auf Zimmerlautstärke einzustellen. Handwerkliche Arbeiten in der Wohnung, etwa Bohren, sind nur werktags zwischen 8 und 19 Uhr erlaubt.',
      ),
      s(
        'Müll und Recycling',
        'Der Restmüll wird dienstags abgeholt, die gelbe Tonne für Verpackungen jeden zweiten Freitag. Glas bringen die Bewohner selbst zu den Containern an der Ecke Lindenstraße. Sperrmüll darf nicht im Hof abgestellt werden; er wird bei der Stadt angemeldet und erst am Abend vor der Abholung an die Straße gestellt.',
      ),
      s(
        'Kaution und Kündigung',
        'Die Kaution beträgt drei Nettokaltmieten und wird auf einem gesonderten Konto angelegt. Sie kann in drei gleichen Monatsraten gezahlt werden. Der Mieter kann das Mietverhältnis mit einer Frist von drei Monaten zum Monatsende schriftlich kündigen. Nach dem Auszug wird die Kaution innerhalb von sechs Monaten abgerechnet und zurückgezahlt.',
      ),
      s(
        'Haustiere',
        'Kleintiere wie Hamster, Fische oder Vögel dürfen ohne Zustimmung gehalten werden. Für Hunde und Katzen ist vorher die schriftliche Erlaubnis der Hausverwaltung einzuholen. Hunde sind im Treppenhaus und im Hof an der Leine zu führen, und ihre Hinterlassenschaften sind sofort zu entfernen.',
      ),
      s(
        'Heizung und Lüften',
        'Die Heizperiode dauert vom 1. Oktober bis zum 30. April. In dieser Zeit soll die Raumtemperatur tagsüber mindestens 20 Grad erreichen. Um Schimmel zu vermeiden, wird mehrmals täglich für einige Minuten quergelüftet; Fenster sollen im Winter nicht dauerhaft gekippt bleiben.',
      ),
    ],
  },
  {
    id: 'ko',
    filename: '근무규정.txt',
    sections: [
      s(
        '근무시간',
        '기본 근무시간은 오전 9시부터 오후 6시까지이며 점심시간은 12시부터 1시까지이다. 유연근무제를 신청한 직원은 오전 7시에서 10시 사이에 출근할 수 있다. 연장근무는 사전에 팀장의 승인을 받아야 하며, 한 주에 12시간을 넘을 수 없다.',
      ),
      s(
        '연차휴가',
        '입사 첫해에는 한 달 개근 시 하루의 유급휴가가 생긴다. 1년 이상 근무한 직원에게는 매년 15일의 연차휴가가 주어지고, 3년마다 하루씩 늘어난다. 연차휴가는 최소 사흘 전에 인사시스템에서 신청한다. 사용하지 못한 연차는 다음 해 3월까지 이월할 수 있다.',
      ),
      s(
        '재택근무',
        '재택근무는 주 2회까지 가능하며 전날 오후 5시까지 팀 일정표에 등록해야 한다. 재택근무 중에도 근무시간에는 메신저와 전화로 연락이 닿아야 한다. 회사 노트북만 사용하고 공용 와이파이에서는 반드시 VPN에 접속한다.',
      ),
      s(
        '경조사 휴가',
        '본인 결혼 시 5일, 자녀 결혼 시 1일의 경조휴가를 준다. 부모나 배우자가 사망한 경우 5일, 조부모의 경우 3일의 휴가를 쓸 수 있다. 경조휴가는 연차와 별도로 유급으로 처리되며 증빙 서류를 인사팀에 제출해야 한다.',
      ),
    ],
  },
];
