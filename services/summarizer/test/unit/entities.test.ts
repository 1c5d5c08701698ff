import {
  dedupeStrings,
  emptyEntities,
  mergeEntities,
  NamedEntitiesSchema,
  normaliseEntities,
} from '../../src/entities';

describe('entities', () => {
  it('the empty set has the eight keys of the spec', () => {
    expect(Object.keys(emptyEntities())).toEqual([
      'PER',
      'ORG',
      'GPE',
      'LOC',
      'DATE',
      'TIME',
      'EVENT',
      'FAC',
    ]);
    expect(NamedEntitiesSchema.parse(emptyEntities())).toEqual(emptyEntities());
  });

  it('normalises what models return: key case, lone strings, blanks, numbers, unknown keys', () => {
    expect(
      normaliseEntities({
        per: ['Ann', ' ann ', '', 7],
        Org: 'Pelita Corp',
        DATE: [2024, null, { x: 1 }],
        PRODUCT: ['ignored'],
      }),
    ).toEqual({ ...emptyEntities(), PER: ['Ann', '7'], ORG: ['Pelita Corp'], DATE: ['2024'] });
    expect(normaliseEntities(['PER'])).toEqual(emptyEntities());
    expect(normaliseEntities(undefined)).toEqual(emptyEntities());
  });

  it('merges sets per key without case or spacing duplicates, first spelling first', () => {
    const a = { ...emptyEntities(), GPE: ['Jakarta', 'Bali'] };
    const b = { ...emptyEntities(), GPE: ['JAKARTA', 'Bandung'], PER: ['Budi  Santoso'] };
    const c = { ...emptyEntities(), PER: ['budi santoso', 'Ani'] };
    expect(mergeEntities(a, b, c)).toEqual({
      ...emptyEntities(),
      GPE: ['Jakarta', 'Bali', 'Bandung'],
      PER: ['Budi Santoso', 'Ani'],
    });
  });

  it('dedupeStrings keeps order and drops non-strings', () => {
    expect(dedupeStrings(['b', 'a', 'B', true, 'a '])).toEqual(['b', 'a']);
  });
});
