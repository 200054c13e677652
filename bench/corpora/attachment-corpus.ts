// The attachment benchmarks' generated corpus: sections of ~780 characters of mixed English and
// Korean (one section is one chunk), and queries over the same vocabulary with a long tail of rare
// identifiers. Seeded: the same draw on every run.
import type { ExtractedSection } from '../../src/attachments/types.ts';
import { mulberry32 } from '../../test/support/prng.ts';

const EN = (
  'report budget deployment server policy travel leave customer contract review schedule ' +
  'security incident release database migration latency quarter revenue forecast meeting ' +
  'approval invoice vendor onboarding training audit compliance network backup storage ' +
  'cluster kubernetes container pipeline benchmark roadmap feature request ticket support'
).split(' ');
const FILLER_EN = 'the a of to and in for on with that is was by as at from this be are'.split(' ');
const KO = (
  '휴가 규정 직원 회사 보고서 예산 회의 일정 프로젝트 계약 정책 보안 서버 배포 데이터 분석 ' +
  '고객 매출 인사 교육 평가 승인 요청 문서 시스템 관리 운영 개발 테스트 품질 장애 점검'
).split(' ');
const PARTICLES = '은 는 이 가 을 를 의 에 에서 으로 와 과'.split(' ');

/** A seeded draw of sections and queries: the same seed gives the same corpus. */
export function attachmentCorpus(seed = 42) {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  // A long tail of rare identifiers, drawn Zipf-like, so some terms are rare and some common.
  const RARE = Array.from({ length: 4000 }, (_, i) => `term${i.toString(36)}`);
  const rare = () => RARE[Math.floor(RARE.length * rand() ** 3)] as string;

  function englishSentence(): string {
    const words = Array.from({ length: 8 + Math.floor(rand() * 8) }, () =>
      rand() < 0.4 ? pick(FILLER_EN) : rand() < 0.8 ? pick(EN) : rare(),
    );
    const s = words.join(' ');
    return `${s.charAt(0).toUpperCase()}${s.slice(1)}. `;
  }

  function koreanSentence(): string {
    const words = Array.from(
      { length: 5 + Math.floor(rand() * 5) },
      () => `${pick(KO)}${rand() < 0.3 ? pick(KO) : ''}${pick(PARTICLES)}`,
    );
    return `${words.join(' ')} 확인했다. `;
  }

  /** ~780 characters: one section is one chunk, so the corpus holds exactly CHUNKS chunks. */
  function section(page: number): ExtractedSection {
    const korean = rand() < 0.4;
    let text = '';
    while (text.length < 700) text += korean ? koreanSentence() : englishSentence();
    return { text: text.slice(0, 780).trimEnd(), page };
  }

  function query(): string {
    const r = rand();
    if (r < 0.35) return `${pick(EN)} ${pick(EN)}`;
    if (r < 0.55) return `${pick(EN)} ${rare()} ${pick(EN)}`;
    if (r < 0.85) return `${pick(KO)} ${pick(KO)}`;
    return `${pick(KO)}${pick(PARTICLES)} ${pick(EN)}`;
  }

  return { section, query, rare };
}
