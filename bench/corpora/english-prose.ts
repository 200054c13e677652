// English prose: team chat, documentation, incident notes and plain narrative, in sentences that
// samples draw from. Written for this benchmark; nothing here is copied from a data set.
import { lengthPlan, rng } from './prng.ts';

const SENTENCES = [
  'The deployment finished a little after midnight, and nobody noticed the warning until morning.',
  'Could you take a look at the pull request before lunch?',
  'I think the flaky test is caused by a race between the cache warm-up and the first request.',
  'Our quarterly planning meeting has been moved to Thursday afternoon.',
  'When the model server restarts, every conversation in flight loses its streaming connection.',
  'She walked along the river until the lights of the old bridge came into view.',
  'Please remember to rotate the credentials before the contractor leaves the project.',
  'The report shows that latency doubled whenever the garbage collector ran a full cycle.',
  'We agreed to keep the first version small and ship it to one team before anyone else.',
  'It rained all weekend, so the hiking trip turned into a long afternoon of board games.',
  'Documentation is rarely wrong on purpose; it simply stops being true while nobody is looking.',
  'The vendor promised a fix in the next release, but they did not say when that would be.',
  'If the queue grows faster than the workers can drain it, the alert fires within five minutes.',
  'Thanks for the quick turnaround on this, it really helped the support team.',
  'Most of the cost came from storage that nobody had cleaned up in two years.',
  'A good summary keeps the decisions and the open questions and drops the small talk.',
  'He had never seen a library so quiet, not even during the final exams.',
  'The new onboarding guide explains how to request access, set up a laptop and join the on-call rotation.',
  'Can we schedule a short call to go over the migration plan?',
  'Every request carries a trace identifier, which makes it much easier to follow a failure across services.',
  'The committee reviewed forty-two proposals and funded nine of them.',
  'I would rather fix the root cause than add another retry around the symptom.',
  'By the time the snow stopped, the village had been cut off for three days.',
  'Make sure the backup job runs before the maintenance window starts.',
  'Customers in the eastern region reported slow page loads for about an hour.',
  'The algorithm is simple: sort the candidates, drop the duplicates and keep the best ten.',
  'Nobody remembered who had written the original script, but everybody depended on it.',
  'Let me know if anything in the proposal is unclear or seems too ambitious.',
  'The museum opens at nine, although the garden is open from sunrise.',
  'We measured memory use under load and found a leak in the image resizing path.',
  'Once the feature flag is on for everyone, we can delete the old code path.',
  'The hardest part of the project was agreeing on what "done" actually meant.',
  'According to the logs, the connection was reset by the peer after thirty seconds.',
  'Our team values small changes, careful reviews and honest estimates.',
  'The children built a fort out of cardboard boxes and refused to come down for dinner.',
  'If you are unsure whether a change is safe, ask in the channel before merging it.',
  'The contract renews automatically unless either party gives notice sixty days in advance.',
  'I spent the morning reading through old incident reports to find a pattern.',
  'The lighthouse keeper wrote in his journal every evening, even when nothing happened.',
  'Please attach the screenshots and the exact error message to the ticket.',
  'Throughput improved by roughly eighteen percent after we batched the writes.',
  'We should probably talk about the budget before promising anything to the client.',
  'There is a known issue where long threads make the assistant forget the first messages.',
  'The station was crowded, and the announcement about the delay could barely be heard.',
  "I have updated the runbook with the steps we followed during yesterday's outage.",
  'Security reviews take longer when the design document is missing the data flow diagram.',
  'The orchestra rehearsed the final movement until the conductor was finally satisfied.',
  "Let's keep the discussion in this thread so that everyone can follow the decision.",
  'The recommendation engine favours items that other people in the same team opened recently.',
  'Our office plants survived the summer only because the cleaning staff watered them.',
  'Before you upgrade the cluster, read the release notes for breaking changes.',
  'The translation was accurate, but it lost the humour of the original.',
  'Engineers on call get a day off after a week with more than three night pages.',
  'She finished the marathon in just under four hours, which surprised even her coach.',
  'The retention policy deletes raw logs after thirty days and keeps aggregated metrics for a year.',
  'Would it help if I wrote down the assumptions we made last week?',
  "The bakery on the corner sells out of croissants before eight o'clock.",
  'Every alert should tell the person who receives it what to do next.',
  'Sometimes the simplest explanation is that the configuration file was never reloaded.',
  'We interviewed twelve users, and most of them wanted better search rather than more features.',
  'The storm knocked out power to half the city, but the hospital generators kept running.',
  'I am out of the office next week, so please send urgent questions to Maria.',
  'Rate limits protect the shared service from one noisy client taking all the capacity.',
  'In the end, the team decided that a boring solution was the right one.',
  'The old map showed a road that had disappeared under the reservoir decades ago.',
  'Our test suite runs in about four minutes on a laptop and six in continuous integration.',
  'Feedback from the pilot group was mostly positive, with a few complaints about notifications.',
  'The question is not whether the system will fail, but how gracefully it will do so.',
];

const PARAGRAPH_BREAK = 0.15;

function sample(seed: number, sentences: number): string {
  const r = rng(seed);
  let text = '';
  for (let i = 0; i < sentences; i++) {
    if (i > 0) text += r.next() < PARAGRAPH_BREAK ? '\n\n' : ' ';
    text += r.pick(SENTENCES);
  }
  return text;
}

export function englishProse(draw = 0): string[] {
  return lengthPlan(rng(101 + draw * 7919), 60, 60).map((n, i) =>
    sample(1000 + draw * 100_000 + i, n),
  );
}
