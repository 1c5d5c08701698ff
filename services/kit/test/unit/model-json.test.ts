import { parseModelJson, repairJson, stripCodeFence, stripReasoning } from '../../src/model-json';

const ok = (content: string) => {
  const parsed = parseModelJson(content);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed;
};

describe('stripReasoning', () => {
  it('removes think blocks, however many and in any case', () => {
    expect(stripReasoning('<think>a {x}</think>\n{"a":1}<THINKING>b</THINKING>')).toBe('{"a":1}');
  });
  it('drops everything before a closing tag whose opening tag was in the prompt', () => {
    expect(stripReasoning('reasoning {not json}</think>{"a":1}')).toBe('{"a":1}');
  });
  it('drops an unclosed reasoning block (the answer was cut while reasoning)', () => {
    expect(stripReasoning('{"a":1}<think>and then')).toBe('{"a":1}');
    expect(stripReasoning('<think>still thinking')).toBe('');
  });
});

describe('stripCodeFence', () => {
  it('takes the content of the first fence, language tag or not, closed or cut off', () => {
    expect(stripCodeFence('Here:\n```json\n{"a":1}\n```\nbye')).toBe('{"a":1}');
    expect(stripCodeFence('```\n{"a":1}\n```')).toBe('{"a":1}');
    expect(stripCodeFence('```json\n{"a":1')).toBe('{"a":1');
    expect(stripCodeFence('{"a":1}')).toBe('{"a":1}');
  });
});

describe('parseModelJson', () => {
  it('parses clean JSON without repair', () => {
    expect(ok('{"summary":"s","key_points":["k"]}')).toEqual({
      ok: true,
      value: { summary: 's', key_points: ['k'] },
      repaired: false,
    });
  });

  it('finds the object inside prose, reasoning and fences', () => {
    const content = '<think>{"draft":1}</think>Sure! ```json\n{"summary": "s"}\n``` Hope it helps';
    expect(ok(content).value).toEqual({ summary: 's' });
  });

  it('repairs a cut-off answer, keeping every complete field', () => {
    const parsed = ok('{"summary": "The text", "key_points": ["one", "tw');
    expect(parsed.repaired).toBe(true);
    expect(parsed.value).toEqual({ summary: 'The text', key_points: ['one', 'tw'] });
    expect(ok('{"summary": "s", "topics"').value).toEqual({ summary: 's' });
    expect(ok('{"summary": "s", "topics":').value).toEqual({ summary: 's' });
    expect(ok('{"summary": "s", "n": {"PER": ["A"], "ORG": [').value).toEqual({
      summary: 's',
      n: { PER: ['A'], ORG: [] },
    });
  });

  it('repairs trailing commas, unquoted keys, single quotes, Python literals and comments', () => {
    const content = `{
      summary: 'It\\'s fine', // a comment
      key_points: ["a", "b",],
      ok: True, missing: None, off: False,
      /* block */ "n": 1.5e2,
    }`;
    expect(ok(content).value).toEqual({
      summary: "It's fine",
      key_points: ['a', 'b'],
      ok: true,
      missing: null,
      off: false,
      n: 150,
    });
  });

  it('repairs unescaped quotes and raw line breaks inside strings, and missing commas', () => {
    const content = '{"summary": "He said "hi" to me\nand left"\n "topics": ["x"]}';
    expect(ok(content).value).toEqual({ summary: 'He said "hi" to me\nand left', topics: ['x'] });
  });

  it('keeps escapes, including unicode escapes', () => {
    expect(ok('{"s": "a\\n\\u00e9\\"b\\\\", "t": "x').value).toEqual({ s: 'a\né"b\\', t: 'x' });
  });

  it('fails on prose without an object, and on a top-level value that is not an object', () => {
    expect(parseModelJson('I cannot do that.')).toEqual({
      ok: false,
      reason: 'no JSON object in the answer',
    });
    expect(parseModelJson('<think>{"a":1}</think> nothing').ok).toBe(false);
  });
});

describe('repairJson', () => {
  it('returns undefined when there is no value at all', () => {
    expect(repairJson('')).toBeUndefined();
    expect(repairJson('   ')).toBeUndefined();
  });
  it('closes nested containers in the right order', () => {
    expect(repairJson('{"a": [{"b": [1, 2')).toEqual({ a: [{ b: [1, 2] }] });
  });
  it('does not treat prototype names as literals', () => {
    expect(repairJson('{a: constructor}')).toEqual({ a: 'constructor' });
  });
});
