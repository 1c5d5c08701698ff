import { emailAddress } from '@pelita/kit';

describe('emailAddress', () => {
  const valid = (value: string) => emailAddress().safeParse(value).success;

  it('takes ordinary addresses', () => {
    for (const value of ['ana@pelita.test', 'first.last+tag@mail.example.co.id', 'x_y@a-b.io']) {
      expect({ value, valid: valid(value) }).toEqual({ value, valid: true });
    }
  });

  it('refuses a domain label that starts or ends with a hyphen, or is longer than 63', () => {
    for (const value of ['a@host-.example', 'a@-host.example', `a@${'h'.repeat(64)}.example`]) {
      expect({ value, valid: valid(value) }).toEqual({ value, valid: false });
    }
  });

  it('refuses what zod refuses: no @, no top-level domain, a dot to start', () => {
    for (const value of ['pelita.test', 'a@localhost', '.a@pelita.test', 'a b@pelita.test']) {
      expect({ value, valid: valid(value) }).toEqual({ value, valid: false });
    }
  });

  it('answers with the given message', () => {
    const result = emailAddress('Not an e-mail address').safeParse('a@host-.example');
    expect(result.error?.issues[0]?.message).toBe('Not an e-mail address');
  });
});
