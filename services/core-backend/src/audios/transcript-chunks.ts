/**
 * Transcript chunks for the knowledge index: consecutive segments of one speaker are joined into
 * a turn, a turn is cut into chunks of at most `maxWords` words (at segment boundaries when it
 * can be, inside a segment only when one alone is longer). Each chunk keeps its speaker and
 * times, so an answer can say who said it and when.
 */
import type { SpokenSegment } from './speech-to-text';

export interface TranscriptChunk {
  speaker: string | null;
  start: number;
  end: number;
  text: string;
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

export function chunkTranscript(segments: SpokenSegment[], maxWords: number): TranscriptChunk[] {
  const chunks: TranscriptChunk[] = [];
  let current: (TranscriptChunk & { words: number }) | undefined;
  for (const segment of segments.flatMap((s) => splitLong(s, maxWords))) {
    const words = wordCount(segment.text);
    if (current && current.speaker === segment.speaker && current.words + words <= maxWords) {
      current.text += ` ${segment.text}`;
      current.end = segment.end;
      current.words += words;
      continue;
    }
    if (current) chunks.push(withoutCount(current));
    current = { ...segment, words };
  }
  if (current) chunks.push(withoutCount(current));
  return chunks;
}

function withoutCount({ words: _words, ...chunk }: TranscriptChunk & { words: number }) {
  return chunk;
}

/** A segment longer than `maxWords`, cut into parts with times shared out by words. */
function splitLong(segment: SpokenSegment, maxWords: number): SpokenSegment[] {
  const words = segment.text.split(/\s+/).filter(Boolean);
  if (words.length <= maxWords) return [segment];
  const parts: SpokenSegment[] = [];
  const perWord = (segment.end - segment.start) / words.length;
  for (let at = 0; at < words.length; at += maxWords) {
    const count = Math.min(maxWords, words.length - at);
    parts.push({
      speaker: segment.speaker,
      start: segment.start + at * perWord,
      end: segment.start + (at + count) * perWord,
      text: words.slice(at, at + count).join(' '),
    });
  }
  return parts;
}

/** The transcript as text the summarizer and a reader understand: `SPEAKER_00: words` per turn. */
export function transcriptText(chunks: TranscriptChunk[]): string {
  return chunks
    .map((chunk) => (chunk.speaker ? `${chunk.speaker}: ${chunk.text}` : chunk.text))
    .join('\n');
}
