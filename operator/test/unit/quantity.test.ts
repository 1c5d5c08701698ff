import { canonicalQuantity } from '../../src/render/quantity';

describe('canonicalQuantity', () => {
  // Each pair is what the apiserver stores for the given quantity (apimachinery's canonical form).
  const cases: Array<[string, string]> = [
    ['0.5', '500m'],
    ['1000m', '1'],
    ['1.5', '1500m'],
    ['100m', '100m'],
    ['2', '2'],
    ['0.1', '100m'],
    ['0.0005', '500u'],
    ['2000k', '2M'],
    ['100M', '100M'],
    ['1500k', '1500k'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['128Mi', '128Mi'],
    ['0.5Ki', '512'],
    ['2048Ki', '2Mi'],
    ['1Ki', '1Ki'],
    ['0', '0'],
    ['0Mi', '0'],
  ];
  it.each(cases)('%s → %s', (given, canonical) => {
    expect(canonicalQuantity(given)).toBe(canonical);
  });

  it('is idempotent', () => {
    for (const [, canonical] of cases) expect(canonicalQuantity(canonical)).toBe(canonical);
  });

  it('rejects what is not a quantity', () => {
    expect(() => canonicalQuantity('lots')).toThrow(/not a quantity/);
    expect(() => canonicalQuantity('1Xi')).toThrow(/unknown quantity suffix/);
  });
});
