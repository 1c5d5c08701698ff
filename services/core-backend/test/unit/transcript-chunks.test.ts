import { chunkTranscript, transcriptText } from '../../src/audios/transcript-chunks';

const words = (n: number, word = 'word') => Array.from({ length: n }, () => word).join(' ');

describe('transcript chunks', () => {
  it("joins a speaker's consecutive segments into one turn and starts a new one per speaker", () => {
    const chunks = chunkTranscript(
      [
        { start: 0, end: 2, text: 'Good morning.', speaker: 'SPEAKER_00' },
        { start: 2, end: 4, text: 'Shall we start?', speaker: 'SPEAKER_00' },
        { start: 4, end: 5, text: 'Yes.', speaker: 'SPEAKER_01' },
        { start: 5, end: 7, text: 'First item.', speaker: 'SPEAKER_00' },
      ],
      200,
    );
    expect(chunks).toEqual([
      { speaker: 'SPEAKER_00', start: 0, end: 4, text: 'Good morning. Shall we start?' },
      { speaker: 'SPEAKER_01', start: 4, end: 5, text: 'Yes.' },
      { speaker: 'SPEAKER_00', start: 5, end: 7, text: 'First item.' },
    ]);
    expect(transcriptText(chunks)).toBe(
      'SPEAKER_00: Good morning. Shall we start?\nSPEAKER_01: Yes.\nSPEAKER_00: First item.',
    );
  });

  it('cuts a long turn at segment boundaries, and a single long segment by words with its time shared out', () => {
    const turn = chunkTranscript(
      [
        { start: 0, end: 10, text: words(15, 'a'), speaker: 'S' },
        { start: 10, end: 20, text: words(15, 'b'), speaker: 'S' },
      ],
      20,
    );
    expect(turn.map((c) => c.text)).toEqual([words(15, 'a'), words(15, 'b')]);

    const long = chunkTranscript([{ start: 0, end: 50, text: words(50), speaker: null }], 20);
    expect(long.map((c) => c.text.split(' ').length)).toEqual([20, 20, 10]);
    expect(long.map((c) => [c.start, c.end])).toEqual([
      [0, 20],
      [20, 40],
      [40, 50],
    ]);
    expect(transcriptText(long).startsWith('word')).toBe(true);
  });
});
