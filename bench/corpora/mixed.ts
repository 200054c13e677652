// Mixed: the way a Korean engineering team writes in a thread — Korean with English terms, inline
// code, fenced snippets, links, lists, numbers and emoji. Written for this benchmark.
import { lengthPlan, rng } from './prng.ts';

const LINES = [
  '어제 배포한 `v2.3.1`에서 `/api/messages` 응답 시간이 p95 기준 850ms까지 올라갔어요.',
  'PR #1423 리뷰 부탁드립니다 🙏 변경 사항은 `retryWithBackoff()` 쪽이 대부분이에요.',
  'Redis `maxmemory-policy`를 `allkeys-lru`로 바꾸면 세션이 날아갈 수 있어서 조심해야 합니다.',
  'CI가 또 깨졌네요 😅 `npm ci` 단계에서 ETIMEDOUT 나는 것 같아요.',
  '관련 문서: https://docs.example.com/runbooks/vllm-restart#rollback',
  '- [x] 로그 수집 설정\n- [ ] Grafana 대시보드 추가\n- [ ] 알림 임계값 조정',
  'Qwen3-8B 모델로 바꾸고 나서 한국어 답변 품질이 확실히 좋아졌습니다 👍',
  'context window가 32k인데 thread가 길어지면 앞부분이 잘려요. summarization 먼저 붙여야 할 듯.',
  'The root cause was a missing index on `messages(thread_ts)`; 인덱스 추가 후 쿼리가 12ms로 줄었어요.',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a pasted snippet, kept verbatim
  "```ts\nconst res = await fetch(`${base}/tokenize`, { method: 'POST', body });\nconst { count } = await res.json();\n```",
  '```bash\nkubectl -n ml rollout restart deploy/vllm-qwen3\nkubectl -n ml get pods -w\n```',
  '오늘 회의록 공유드려요. 결정 사항: 1) GPU 노드 2대 추가 2) 토큰 예산 8,192로 상향 3) 다음 주 금요일 릴리스',
  'LGTM! 다만 `catch (err)`에서 로그만 남기고 끝나는 부분은 사용자한테도 알려 주면 좋겠어요.',
  '`docker compose up -d` 하고 `curl localhost:3000/healthz` 해 보면 200 떨어집니다.',
  '질문이 있는데요, Slack에서 파일 올리면 PDF랑 DOCX 둘 다 읽을 수 있나요?',
  'FYI: 이번 주 on-call은 @jun 님입니다. 장애 나면 #incident 채널로 와 주세요 🚨',
  '메모리 사용량이 1.2GiB → 3.8GiB로 늘어난 건 이미지 리사이즈 버퍼 때문이었어요.',
  'error: `ECONNRESET` at `Socket.onread` (node:net:1093:28) — 서버가 먼저 연결을 끊은 거예요.',
  '| 항목 | 이전 | 이후 |\n|---|---|---|\n| p50 | 120ms | 95ms |\n| p99 | 2.1s | 640ms |',
  'Could you check whether the `max_model_len` from `/v1/models` matches the config? 설정값이 다른 것 같아요.',
  '다음 스프린트 목표는 long thread 요약 기능이랑 attachment 검색 정확도 개선입니다.',
  'JSON 예시: `{"name": "search_attachment", "arguments": {"query": "분기 매출"}}`',
  '테스트 커버리지 78% → 84% 🎉 남은 건 Discord adapter 쪽이에요.',
  'vLLM 0.8에서는 `--enable-auto-tool-choice --tool-call-parser hermes` 옵션이 필요합니다.',
  '내일 오전 10:30에 디자인 리뷰 있어요. 아젠다: API contract, error codes, rate limit 정책.',
  'Thanks all, 오늘 장애 대응 정말 고생 많으셨습니다 🙇',
];

function sample(seed: number, lines: number): string {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(r.pick(LINES));
  return out.join(r.next() < 0.5 ? '\n' : '\n\n');
}

export function mixed(draw = 0): string[] {
  return lengthPlan(rng(505 + draw * 7919), 60, 40).map((n, i) =>
    sample(5000 + draw * 100_000 + i, n),
  );
}
