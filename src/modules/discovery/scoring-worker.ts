/**
 * Worker side of scoring.ts: keeps the agents' scoring data (relevance-scorer.ts) and scores
 * queries, so the request thread spends no time in the loop over every agent.
 */
import { parentPort } from 'node:worker_threads';
import { nameThisThread } from '../../lib/thread-name.ts';
import { createRelevanceScorer } from './relevance-scorer.ts';
import type { ScoringAnswer, ScoringMessage } from './scoring.ts';

nameThisThread('agentry-score');
let scorer = createRelevanceScorer();

parentPort?.on('message', (message: ScoringMessage) => {
  if (message.kind === 'changes') {
    for (const change of message.changes) {
      if (change.kind === 'put') scorer.put(change.slot, change.agent, change.keepSentence);
      else if (change.kind === 'sentence') scorer.setSentence(change.slot, change.vector);
      else if (change.kind === 'work') scorer.setWork(change.slot, change.work);
      else scorer.remove(change.slot);
    }
    return;
  }
  if (message.kind === 'settled' || message.kind === 'save' || message.kind === 'restore') {
    try {
      if (message.kind === 'save') scorer.save(message.dir, message.generation);
      if (message.kind === 'restore') {
        // A restore that fails leaves an empty scorer, never a half-restored one.
        scorer = createRelevanceScorer();
        const restored = createRelevanceScorer();
        restored.restore(message.dir, message.generation);
        scorer = restored;
      }
      parentPort!.postMessage({ id: message.id, settled: true } satisfies ScoringAnswer);
    } catch (error) {
      parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies ScoringAnswer);
    }
    return;
  }
  try {
    const { slots, relevance, parts, coverage } = scorer.score(message.query);
    parentPort!.postMessage({ id: message.id, slots, relevance, parts, coverage } satisfies ScoringAnswer, [
      slots.buffer,
      relevance.buffer,
      parts.buffer,
      coverage.buffer,
    ]);
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies ScoringAnswer);
  }
});
