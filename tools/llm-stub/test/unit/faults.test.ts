import { distortAnswer, FaultScript, ruleFromJson } from '../../src/faults';

describe('FaultScript', () => {
  it('applies a rule to matching requests, `times` times', () => {
    const script = new FaultScript([{ match: /POISON/, times: 2, fault: { kind: 'malformed' } }]);
    expect(script.pick('clean')).toEqual([]);
    expect(script.pick('POISON 1')).toEqual([{ kind: 'malformed' }]);
    expect(script.pick('POISON 2')).toEqual([{ kind: 'malformed' }]);
    expect(script.pick('POISON 3')).toEqual([]);
  });

  it('applies rate rules to a seeded share of requests, the same share on every run', () => {
    const decide = () => {
      const script = new FaultScript([{ rate: 0.3, fault: { kind: 'status', status: 500 } }], 7);
      return Array.from({ length: 1000 }, () => script.pick('x').length);
    };
    const first = decide();
    expect(decide()).toEqual(first);
    const hits = first.reduce((sum, hit) => sum + hit, 0);
    expect(hits).toBeGreaterThan(250);
    expect(hits).toBeLessThan(350);
  });

  it('applies every rule that picks the request, and takes JSON rules with string patterns', () => {
    const script = new FaultScript([
      ruleFromJson({ match: 'final', flags: 'i', fault: { kind: 'latency', ms: 5 } }),
      ruleFromJson({ fault: { kind: 'fence' } }),
    ]);
    expect(script.pick('The FINAL summary')).toEqual([
      { kind: 'latency', ms: 5 },
      { kind: 'fence' },
    ]);
    expect(() => ruleFromJson({ fault: { kind: 'nonsense' } } as never)).toThrow();
  });
});

describe('distortAnswer', () => {
  const answer = { summary: 'S.', key_points: ['k'] };
  it('wraps in think tags and fences, and cuts with finish_reason length', () => {
    const { content } = distortAnswer(answer, [{ kind: 'fence' }, { kind: 'think' }]);
    expect(content).toMatch(/^<think>[\s\S]*<\/think>\n```json\n\{[\s\S]*\}\n```$/);
    const cut = distortAnswer(answer, [{ kind: 'truncate', fraction: 0.5 }]);
    expect(cut.truncated).toBe(true);
    expect(cut.content.length).toBe(Math.floor(JSON.stringify(answer, null, 2).length * 0.5));
  });
  it('writes loose JSON or prose', () => {
    expect(distortAnswer(answer, [{ kind: 'broken-json' }]).content).toBe(
      '{\n  summary: "S.",\n  key_points: [\n    "k",\n  ],\n}',
    );
    expect(distortAnswer(answer, [{ kind: 'malformed' }]).content).not.toContain('{');
  });
});
