/** Fault rules: which file, which moment, how many times. */
import { FaultScript, ruleFromJson } from '../../src/faults';

describe('FaultScript', () => {
  it('applies a fault only at its own moment', () => {
    const script = new FaultScript([{ fault: { kind: 'upload-rejected' } }]);
    expect(script.pick('process', ['a.pdf'])).toEqual([]);
    expect(script.pick('poll', ['a.pdf'])).toEqual([]);
    expect(script.pick('upload', ['a.pdf'])).toEqual([{ kind: 'upload-rejected', status: 403 }]);
  });

  it('applies the download faults at downloads only, with their defaults', () => {
    const script = new FaultScript([
      { fault: { kind: 'download-error' } },
      { fault: { kind: 'download-stall' } },
    ]);
    expect(script.pick('poll', ['a.pdf'])).toEqual([]);
    expect(script.pick('download', ['a.pdf'])).toEqual([
      { kind: 'download-error', status: 500 },
      { kind: 'download-stall' },
    ]);
  });

  it('picks by file name pattern; a batch is hit when any of its files matches', () => {
    const script = new FaultScript([{ match: /^stuck/, fault: { kind: 'never-finish' } }]);
    expect(script.pick('process', ['report.pdf'])).toEqual([]);
    expect(script.pick('process', ['stuck-1.pdf'])).toEqual([{ kind: 'never-finish' }]);
    script.set([{ match: 'bad', fault: { kind: 'status-error' } }]);
    expect(script.pick('poll', ['ok.pdf', 'bad.pdf'])).toEqual([
      { kind: 'status-error', status: 500 },
    ]);
  });

  it('stops a rule after `times` applications; other rules go on', () => {
    const script = new FaultScript([
      { times: 2, fault: { kind: 'status-error', status: 503 } },
      { fault: { kind: 'slow', pageMs: 5 } },
    ]);
    expect(script.pick('poll', ['x'])).toHaveLength(1);
    expect(script.pick('poll', ['x'])).toHaveLength(1);
    expect(script.pick('poll', ['x'])).toEqual([]);
    expect(script.pick('process', ['x'])).toEqual([{ kind: 'slow', pageMs: 5 }]);
  });

  it('fills the defaults of each fault', () => {
    const script = new FaultScript([{ fault: { kind: 'fail' } }, { fault: { kind: 'bad-zip' } }]);
    expect(script.pick('process', ['x'])).toEqual([
      { kind: 'fail', code: -60010, atPage: 0 },
      { kind: 'bad-zip', mode: 'truncated' },
    ]);
  });

  it('combines every rule that hits', () => {
    const script = new FaultScript([
      { fault: { kind: 'slow', pageMs: 1 } },
      { match: 'x', fault: { kind: 'fail', code: -60003, message: 'gone', atPage: 2 } },
    ]);
    expect(script.pick('process', ['x']).map((fault) => fault.kind)).toEqual(['slow', 'fail']);
  });
});

describe('ruleFromJson', () => {
  it('turns the pattern source and flags into a regular expression', () => {
    const rule = ruleFromJson({ match: '^SLOW', flags: 'i', fault: { kind: 'slow', pageMs: 3 } });
    expect(rule.match).toEqual(/^SLOW/i);
    const script = new FaultScript([rule]);
    expect(script.pick('process', ['slow.pdf'])).toHaveLength(1);
  });

  it('rejects unknown kinds, bad statuses and bad flags', () => {
    expect(() => ruleFromJson({ fault: { kind: 'explode' } } as never)).toThrow();
    expect(() =>
      ruleFromJson({ fault: { kind: 'upload-rejected', status: 404 } } as never),
    ).toThrow();
    expect(() => ruleFromJson({ flags: 'g', fault: { kind: 'never-finish' } })).toThrow();
    expect(() => ruleFromJson({ times: -1, fault: { kind: 'never-finish' } })).toThrow();
  });
});
