import { parseStructuredAnswer } from '@pelita/kit';
import { ENDPOINT_ANSWER, SQL_ANSWER, extractSql } from '../../src/chats/source-lookups';

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

describe('the planning answers asked as JSON', () => {
  it('send strict schemas generated from the zod schemas that read them', () => {
    expect(SQL_ANSWER.jsonSchema).toEqual({
      type: 'object',
      properties: {
        sql: { type: 'string', description: 'exactly one read-only SELECT statement' },
      },
      required: ['sql'],
      additionalProperties: false,
    });
    expect(ENDPOINT_ANSWER.jsonSchema).toMatchObject({
      required: ['endpoint_id', 'params'],
      properties: {
        params: {
          type: 'array',
          items: {
            properties: { name: { type: 'string' }, value: { type: 'string' } },
            required: ['name', 'value'],
            additionalProperties: false,
          },
        },
      },
    });
  });

  it('read parameters given as pairs or, from a prompt-only answer, as an object', () => {
    const read = (content: string) => parseStructuredAnswer(content, ENDPOINT_ANSWER);
    const expected = { endpoint_id: 'e1', params: [{ name: 'id', value: '7' }] };
    expect(read('{"endpoint_id": "e1", "params": [{"name": "id", "value": "7"}]}')).toMatchObject({
      ok: true,
      value: expected,
    });
    expect(read('Sure: {"endpoint_id": "e1", "params": {"id": 7}}')).toMatchObject({
      ok: true,
      value: expected,
    });
    expect(read('{"params": {}}')).toMatchObject({ ok: false });
  });
});
