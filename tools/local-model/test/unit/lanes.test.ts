/**
 * How a batch is filled when both lanes have tokens waiting: the chat's first, all it needs (up
 * to the batch size); the background's in what is left, never more than BACKGROUND_BATCH.
 */
import { BACKGROUND_BATCH, LANE_PRIORITY, lanesBatch } from '../../src/lanes';

const item = (lane: keyof typeof LANE_PRIORITY, tokens: number) => ({
  tokens: Array.from({ length: tokens }, (_, i) => i),
  evaluationPriority: LANE_PRIORITY[lane],
});

describe('the lanes batch strategy', () => {
  it("gives the chat's tokens first and caps the background's", () => {
    const background = item('background', 1_000);
    const chat = item('chat', 150);
    expect(lanesBatch({ items: [background, chat], size: 512 })).toEqual([
      { item: chat, processAmount: 150 },
      { item: background, processAmount: BACKGROUND_BATCH },
    ]);
  });

  it('gives the background only what the chat leaves of the batch', () => {
    const background = item('background', 1_000);
    const chat = item('chat', 600);
    expect(lanesBatch({ items: [background, chat], size: 512 })).toEqual([
      { item: chat, processAmount: 512 },
    ]);
    const nearlyFull = item('chat', 500);
    expect(lanesBatch({ items: [nearlyFull, background], size: 512 })).toEqual([
      { item: nearlyFull, processAmount: 500 },
      { item: background, processAmount: 12 },
    ]);
  });

  it('evaluates the background alone in small batches, and a short item whole', () => {
    const background = item('background', 1_000);
    expect(lanesBatch({ items: [background], size: 512 })).toEqual([
      { item: background, processAmount: BACKGROUND_BATCH },
    ]);
    const oneToken = item('background', 1);
    expect(lanesBatch({ items: [oneToken], size: 512 })).toEqual([
      { item: oneToken, processAmount: 1 },
    ]);
  });
});
