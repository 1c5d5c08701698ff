/** One's own new e-mail address with fakes of the user repository, the link store and the mailer. */
import { createEmailChange } from '../../src/users/email-change';
import type { Mail } from '../../src/mail/mailer';
import { capturedLogger, fakeUsers, user } from './auth/fakes';

function setup(options: { mailFails?: boolean; resendSeconds?: number } = {}) {
  const users = fakeUsers(user(), user({ id: 'u-2', email: 'bob@pelita.test', username: 'bob' }));
  const links = new Map<string, { userId: string; value: string }>();
  const resetLinksEnded: string[] = [];
  const mailed = new Set<string>();
  const sent: Mail[] = [];
  const { logger } = capturedLogger();
  const emailChange = createEmailChange({
    users: {
      ...users,
      update: (id, changes) => {
        const found = users.byId.get(id)!;
        if (changes.email && [...users.byId.values()].some((u) => u.email === changes.email))
          return Promise.reject(Object.assign(new Error('duplicate'), { code: '23505' }));
        users.byId.set(id, { ...found, email: changes.email ?? found.email });
        return Promise.resolve(true);
      },
    },
    tokens: {
      issue: (token, userId, value = userId) => (
        links.set(token, { userId, value }),
        Promise.resolve()
      ),
      consume: (token) => {
        const link = links.get(token);
        links.delete(token);
        return Promise.resolve(link?.value ?? null);
      },
      revokeAllOf: (userId) => {
        for (const [token, link] of links) if (link.userId === userId) links.delete(token);
        return Promise.resolve();
      },
      mayMail: (userId, _limit, seconds) => {
        if (seconds > 0 && mailed.has(userId)) return Promise.resolve(false);
        mailed.add(userId);
        return Promise.resolve(true);
      },
    },
    resetLinks: {
      revokeAllOf: (userId) => (resetLinksEnded.push(userId), Promise.resolve()),
    },
    mailer: {
      configured: true,
      send: (mail) => {
        if (options.mailFails && mail.subject.startsWith('Confirm'))
          return Promise.reject(new Error('SMTP 554 rejected'));
        sent.push(mail);
        return Promise.resolve();
      },
    },
    logger,
    frontendUrl: 'https://app.pelita.test',
    resendSeconds: options.resendSeconds ?? 0,
  });
  const tokenOf = (mail: Mail) =>
    decodeURIComponent(/verify-email\?token=(\S+)/.exec(mail.text)?.[1] ?? '');
  return { emailChange, users, links, sent, tokenOf, resetLinksEnded };
}

const background = () => new Promise((resolve) => setImmediate(resolve));

describe("changing one's own e-mail address", () => {
  it('mails the new address a link; only following it changes the address, and the old one is told', async () => {
    const { emailChange, users, sent, tokenOf, resetLinksEnded } = setup();
    await emailChange.request({ id: 'u-1' }, 'ada@new.test');
    expect(users.byId.get('u-1')!.email).toBe('ada@pelita.test');
    expect(resetLinksEnded).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      to: 'ada@new.test',
      subject: 'Confirm your new e-mail address',
    });
    const token = tokenOf(sent[0]!);
    await expect(emailChange.confirm(token)).resolves.toBe(true);
    expect(users.byId.get('u-1')!.email).toBe('ada@new.test');
    // Reset links mailed to the old address end with it.
    expect(resetLinksEnded).toEqual(['u-1']);
    await background();
    expect(sent[1]).toMatchObject({ to: 'ada@pelita.test' });
    expect(sent[1]!.text).toContain('ada@new.test');
    await expect(emailChange.confirm(token)).resolves.toBe(false);
  });

  it('ends older links with a new request, and limits requests by the resend interval', async () => {
    const { emailChange, users, sent, tokenOf } = setup();
    await emailChange.request({ id: 'u-1' }, 'typo@new.tset');
    await emailChange.request({ id: 'u-1' }, 'ada@new.test');
    await expect(emailChange.confirm(tokenOf(sent[0]!))).resolves.toBe(false);
    expect(users.byId.get('u-1')!.email).toBe('ada@pelita.test');
    const limited = setup({ resendSeconds: 60 });
    await limited.emailChange.request({ id: 'u-1' }, 'ada@new.test');
    await expect(limited.emailChange.request({ id: 'u-1' }, 'ada@new.test')).rejects.toMatchObject({
      status: 429,
      code: 'too_many_requests',
    });
  });

  it("refuses another account's address at the request and at the confirmation", async () => {
    const { emailChange, users, sent, tokenOf } = setup();
    await expect(emailChange.request({ id: 'u-1' }, 'BOB@pelita.test')).rejects.toMatchObject({
      status: 409,
    });
    await emailChange.request({ id: 'u-1' }, 'free@pelita.test');
    users.byId.set('u-3', user({ id: 'u-3', email: 'free@pelita.test', username: 'c' }));
    await expect(emailChange.confirm(tokenOf(sent[0]!))).rejects.toMatchObject({ status: 409 });
    expect(users.byId.get('u-1')!.email).toBe('ada@pelita.test');
  });

  it('answers 503 and leaves no link when the e-mail cannot be sent', async () => {
    const { emailChange, links } = setup({ mailFails: true });
    await expect(emailChange.request({ id: 'u-1' }, 'ada@new.test')).rejects.toMatchObject({
      status: 503,
      code: 'mail_unavailable',
    });
    expect(links.size).toBe(0);
  });
});
