/**
 * Deterministic speech-to-text. The stand-in cannot hear, so what a recording "says" is its
 * script: the comment (`LIST`/`INFO`/`ICMT`) of a WAV file, one `Speaker: words` line per turn,
 * which tests write into real WAV files. Without a script the words are drawn from a fixed
 * vocabulary by a hash of the bytes (two speakers taking turns): the same file always gives the
 * same transcript. Speakers are labelled `SPEAKER_00`, `SPEAKER_01`, ... in order of first turn,
 * as diarising servers (WhisperX and its API wrappers) label them.
 */
import { createHash } from 'node:crypto';

export interface TranscriptSegment {
  id: number;
  start: number;
  end: number;
  text: string;
  /** Only when diarisation was asked for. */
  speaker?: string;
}

export interface Transcript {
  language: string;
  /** Seconds: the WAV header's length, else the segments' end. */
  duration: number;
  text: string;
  segments: TranscriptSegment[];
}

export interface TranscribeOptions {
  diarize: boolean;
  /** Digits spelt out as words (WhisperX's `suppress_numerals`). */
  suppressNumerals: boolean;
  language?: string;
}

/** Seconds one spoken word takes in the made-up timings. */
const SECONDS_PER_WORD = 0.4;

export function transcribe(audio: Buffer, options: TranscribeOptions): Transcript {
  const turns = scriptOf(audio) ?? generatedTurns(audio);
  const labels = new Map<string, string>();
  let clock = 0;
  const segments = turns.map((turn, id) => {
    if (!labels.has(turn.speaker)) {
      labels.set(turn.speaker, `SPEAKER_${String(labels.size).padStart(2, '0')}`);
    }
    const text = options.suppressNumerals ? spellDigits(turn.text) : turn.text;
    const start = clock;
    clock = round(clock + Math.max(1, text.split(/\s+/).length) * SECONDS_PER_WORD);
    return {
      id,
      start,
      end: clock,
      text,
      ...(options.diarize ? { speaker: labels.get(turn.speaker)! } : {}),
    };
  });
  return {
    language: options.language ?? 'en',
    duration: wavSeconds(audio) ?? clock,
    text: segments.map((segment) => segment.text).join(' '),
    segments,
  };
}

interface Turn {
  speaker: string;
  text: string;
}

/** The `Speaker: words` lines of a WAV file's INFO comment, if it has one. */
function scriptOf(audio: Buffer): Turn[] | undefined {
  const comment = riffChunks(audio)
    .filter((chunk) => chunk.id === 'LIST' && chunk.body.toString('latin1', 0, 4) === 'INFO')
    .flatMap((list) => riffChunks(list.body.subarray(4)))
    .find((chunk) => chunk.id === 'ICMT');
  if (!comment) return undefined;
  const turns = comment.body
    .toString('utf8')
    .replace(/\0+$/, '')
    .split('\n')
    .map((line) => /^\s*([^:]{1,40}):\s*(.+?)\s*$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ speaker: match[1]!.trim(), text: match[2]! }));
  return turns.length > 0 ? turns : undefined;
}

/** Sub-chunks of a RIFF body (`RIFF` header skipped when present). */
function riffChunks(data: Buffer): Array<{ id: string; body: Buffer }> {
  let at = data.toString('latin1', 0, 4) === 'RIFF' ? 12 : 0;
  const chunks: Array<{ id: string; body: Buffer }> = [];
  while (at + 8 <= data.length) {
    const id = data.toString('latin1', at, at + 4);
    const size = data.readUInt32LE(at + 4);
    if (!/^[\x20-\x7e]{4}$/.test(id) || at + 8 + size > data.length) break;
    chunks.push({ id, body: data.subarray(at + 8, at + 8 + size) });
    at += 8 + size + (size % 2);
  }
  return chunks;
}

/** Length of a PCM WAV file from its `fmt ` and `data` chunks. */
function wavSeconds(audio: Buffer): number | undefined {
  if (audio.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  const chunks = riffChunks(audio);
  const format = chunks.find((chunk) => chunk.id === 'fmt ');
  const data = chunks.find((chunk) => chunk.id === 'data');
  if (!format || !data || format.body.length < 12) return undefined;
  const bytesPerSecond = format.body.readUInt32LE(8);
  return bytesPerSecond > 0 ? round(data.body.length / bytesPerSecond) : undefined;
}

const VOCABULARY = (
  'the team reviewed quarterly budget figures and agreed that the new warehouse opens in spring ' +
  'while customers asked about delivery times support tickets and the pricing of premium plans ' +
  'engineers reported that the migration finished early and the dashboard now loads faster'
).split(' ');

function generatedTurns(audio: Buffer): Turn[] {
  const digest = createHash('sha256').update(audio).digest();
  const turns: Turn[] = [];
  for (let turn = 0; turn < 2 + (digest[0]! % 3); turn++) {
    const words = Array.from(
      { length: 8 + (digest[turn + 1]! % 8) },
      (_, i) => VOCABULARY[digest[(turn * 7 + i) % digest.length]! % VOCABULARY.length]!,
    );
    const sentence = words.join(' ');
    turns.push({
      speaker: turn % 2 === 0 ? 'first' : 'second',
      text: `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`,
    });
  }
  return turns;
}

const DIGIT_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
];

function spellDigits(text: string): string {
  return text.replace(/\d+/g, (digits) =>
    [...digits].map((digit) => DIGIT_WORDS[Number(digit)]!).join(' '),
  );
}

const round = (seconds: number) => Math.round(seconds * 100) / 100;
