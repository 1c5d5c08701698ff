import { onceEach, warningLines } from '../../src/node-warnings';

/** What Node 20 writes on standard error for the AWS SDK's warning (the first of a process). */
const AWS_WARNING = [
  '(node:15607) Warning: NodeVersionSupportWarning: The AWS SDK for JavaScript (v3)',
  'versions published after the first week of January 2027',
  'will require node >=22. You are running node v20.20.2.',
  '',
  'To continue receiving updates to AWS services, bug fixes,',
  'and security updates please upgrade to node >=22.',
  '',
  'More information can be found at: https://a.co/c895JFp',
  '(Use `node --trace-warnings ...` to show where the warning was created)',
];

function gather(lines: string[]): { warnings: string[]; others: string[] } {
  const warnings: string[] = [];
  const others: string[] = [];
  const gatherer = warningLines((text) => warnings.push(text));
  for (const line of lines) if (!gatherer.take(line)) others.push(line);
  gatherer.flush();
  return { warnings, others };
}

describe('warningLines', () => {
  it("gathers a multi-line warning into one text, without Node's prefix and hint", () => {
    expect(gather(AWS_WARNING)).toEqual({
      warnings: [
        'Warning: NodeVersionSupportWarning: The AWS SDK for JavaScript (v3) versions published ' +
          'after the first week of January 2027 will require node >=22. You are running node ' +
          'v20.20.2. To continue receiving updates to AWS services, bug fixes, and security ' +
          'updates please upgrade to node >=22. More information can be found at: https://a.co/c895JFp',
      ],
      others: [],
    });
  });

  it('ends a warning at the next one, and leaves lines before any warning alone', () => {
    expect(
      gather([
        'a crash',
        '(node:1) ExperimentalWarning: one',
        '(node:1) [DEP0040] DeprecationWarning: two',
        'and more',
      ]),
    ).toEqual({
      warnings: ['ExperimentalWarning: one', '[DEP0040] DeprecationWarning: two and more'],
      others: ['a crash'],
    });
  });

  it('ends a warning after a pause, so later lines are not taken for it', async () => {
    const warnings: string[] = [];
    const gatherer = warningLines((text) => warnings.push(text));
    expect(gatherer.take('(node:1) Warning: alone')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(warnings).toEqual(['Warning: alone']);
    expect(gatherer.take('Error: something else')).toBe(false);
  });
});

describe('onceEach', () => {
  it('is true once per text, whichever process said it', () => {
    const firstTime = onceEach();
    const aws = gather(AWS_WARNING).warnings[0]!;
    const again = gather(AWS_WARNING.map((line) => line.replace('15607', '15700'))).warnings[0]!;
    expect([firstTime(aws), firstTime(again), firstTime('other'), firstTime(aws)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
