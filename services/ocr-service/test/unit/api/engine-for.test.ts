import { createTaskSubmission, type TaskSubmissionDeps } from '../../../src/api/task-submission';

/** Only `engines` is read by `engineFor`; the rest is never touched. */
const submission = (engines: { cloud: boolean; local: boolean }) =>
  createTaskSubmission({ engines } as unknown as TaskSubmissionDeps);

describe('engineFor (the engine a request runs on)', () => {
  it("takes the seed's default, cloud, when the request names none and the install has it", () => {
    expect(submission({ cloud: true, local: true }).engineFor(undefined)).toBe('cloud');
    expect(submission({ cloud: true, local: false }).engineFor(undefined)).toBe('cloud');
  });

  it('takes the local engine when the request names none and the install has no cloud engine', () => {
    expect(submission({ cloud: false, local: true }).engineFor(undefined)).toBe('local');
  });

  it('keeps an engine the request names, and refuses one the install lacks with 400', () => {
    expect(submission({ cloud: true, local: true }).engineFor('local')).toBe('local');
    expect(() => submission({ cloud: false, local: true }).engineFor('cloud')).toThrow(
      expect.objectContaining({ status: 400, code: 'engine_not_configured' }),
    );
    expect(() => submission({ cloud: false, local: false }).engineFor(undefined)).toThrow(
      /No OCR engine is configured/,
    );
  });
});
