import { waitFor } from '../../src/index';

describe('waitFor', () => {
  it('returns the first value that is not false, undefined or null', async () => {
    const answers = [false, undefined, null, 0];
    const probe = jest.fn(() => answers.shift());
    await expect(waitFor(probe, { what: 'a zero', intervalMs: 1 })).resolves.toBe(0);
    expect(probe).toHaveBeenCalledTimes(4);
  });

  it('keeps polling while the probe throws or its promise rejects', async () => {
    let calls = 0;
    const probe = () => {
      calls += 1;
      if (calls === 1) throw new Error('refused');
      return calls === 2 ? Promise.reject(new Error('reset')) : Promise.resolve('up');
    };
    await expect(waitFor(probe, { what: 'up', intervalMs: 1 })).resolves.toBe('up');
  });

  it('names what it waited for and the last error when time runs out', async () => {
    const probe = () => Promise.reject(new Error('connection refused'));
    await expect(
      waitFor(probe, { what: 'the server', timeoutMs: 30, intervalMs: 5 }),
    ).rejects.toThrow('timed out waiting for the server: connection refused');
  });

  it('takes just the `what` as its options', async () => {
    await expect(waitFor(() => true, 'something true')).resolves.toBe(true);
  });
});
