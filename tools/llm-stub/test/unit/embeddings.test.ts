import { embed, toBase64 } from '../../src/embeddings';

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('stand-in embeddings', () => {
  it('gives the same unit vector for the same text', () => {
    const a = embed('The controller approves each batch.');
    expect(a).toHaveLength(64);
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
    expect(embed('The controller approves each batch.')).toEqual(a);
  });

  it('puts texts sharing words or word forms closer than unrelated ones', () => {
    const text = embed('The controller approves each invoicing batch');
    const related = embed('who approved the invoices');
    const unrelated = embed('printers on every floor belong to facilities');
    expect(cosine(text, related)).toBeGreaterThan(cosine(text, unrelated));
  });

  it('takes another dimension and encodes base64 as little-endian float32', () => {
    const vector = embed('kettle', 8);
    expect(vector).toHaveLength(8);
    const bytes = Buffer.from(toBase64(vector), 'base64');
    expect(bytes.readFloatLE(4)).toBeCloseTo(vector[1]!, 6);
  });
});
