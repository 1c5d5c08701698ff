import { lockMessage, loginMessage, utcPlus7 } from '../../src/integrations/login-notifier';

describe('login notification', () => {
  it('tells the time in UTC+7 whatever the host zone', () => {
    expect(utcPlus7(new Date('2026-11-26T20:30:05Z'))).toBe('2026-11-27 03:30:05 (UTC+7)');
  });

  it('names the user, e-mail, IP, time and user agent', () => {
    const text = loginMessage({
      name: 'Ana',
      email: 'ana@vendor.test',
      ip: '10.0.0.7',
      userAgent: 'Firefox/140',
      at: new Date('2026-01-01T00:00:00Z'),
    });
    expect(text.split('\n')).toEqual([
      'Login to the Pelita license dashboard',
      'Name: Ana',
      'E-mail: ana@vendor.test',
      'IP: 10.0.0.7',
      'Time: 2026-01-01 07:00:00 (UTC+7)',
      'User agent: Firefox/140',
    ]);
  });
});

describe('lock notification', () => {
  it('says the account is locked, after how many codes, and who typed them', () => {
    const text = lockMessage({
      name: 'Ana',
      email: 'ana@vendor.test',
      ip: '10.0.0.9',
      userAgent: 'curl/8',
      at: new Date('2026-01-01T00:00:00Z'),
      failures: 10,
    });
    expect(text).toContain('account locked');
    expect(text).toContain('10 wrong second-factor codes');
    for (const part of ['ana@vendor.test', '10.0.0.9', '2026-01-01 07:00:00 (UTC+7)', 'curl/8'])
      expect(text).toContain(part);
  });
});
