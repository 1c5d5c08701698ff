import { extractSql } from '../../src/chats/source-lookups';

describe('the SQL a model wrote', () => {
  it('is taken from a code fence or the plain answer, without its final semicolon', () => {
    expect(extractSql('```sql\nSELECT id FROM orders;\n```')).toBe('SELECT id FROM orders');
    expect(extractSql('  with t as (select 1) select * from t ')).toBe(
      'with t as (select 1) select * from t',
    );
  });

  it('is refused unless it is one reading statement', () => {
    expect(extractSql('DELETE FROM orders')).toBeUndefined();
    expect(extractSql('SELECT 1; DROP TABLE orders')).toBeUndefined();
    expect(extractSql('I cannot answer that.')).toBeUndefined();
  });
});
