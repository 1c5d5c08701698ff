/**
 * Deterministic embeddings that carry some meaning: each lower-cased word and each of its
 * character trigrams (with word boundaries, `#app`, `ppr`, ...) is hashed into one of
 * `dimensions` buckets with a hashed sign, and the vector is L2-normalised. Texts sharing words,
 * or forms of a word ("approve", "approves", "approval"), are close under cosine; the same text
 * always gives the same vector. A stand-in for a real embeddings model, not a model.
 */
import { createHash } from 'node:crypto';

export const DEFAULT_DIMENSIONS = 64;

function bucket(feature: string, dimensions: number): { index: number; sign: number } {
  const digest = createHash('sha1').update(feature).digest();
  return { index: digest.readUInt32BE(0) % dimensions, sign: digest[4]! & 1 ? 1 : -1 };
}

export function embed(text: string, dimensions = DEFAULT_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const features = [`w:${word}`];
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i++) features.push(`t:${padded.slice(i, i + 3)}`);
    for (const feature of features) {
      const { index, sign } = bucket(feature, dimensions);
      // Whole words weigh as much as all their trigrams together.
      vector[index]! += sign * (feature.startsWith('w:') ? features.length - 1 : 1);
    }
  }
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** OpenAI's `encoding_format: "base64"`: little-endian float32. */
export function toBase64(vector: number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => buffer.writeFloatLE(value, i * 4));
  return buffer.toString('base64');
}
