import { Secret, TOTP } from 'otpauth';
import {
  consumeRecoveryCode,
  hashRecoveryCode,
  newRecoveryCodes,
} from '../../src/auth/recovery-codes';
import { acceptedStep, newTotpSecret, totpUri } from '../../src/auth/totp';

const secret = newTotpSecret();
const at = (ms: number) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: ms });
const now = 1_800_000_000_000;
const step = Math.floor(now / 30_000);

describe('TOTP codes', () => {
  it('accepts the current code and one step either side, nothing further', () => {
    expect(acceptedStep(secret, at(now), null, now)).toBe(step);
    expect(acceptedStep(secret, at(now - 30_000), null, now)).toBe(step - 1);
    expect(acceptedStep(secret, at(now + 30_000), null, now)).toBe(step + 1);
    expect(acceptedStep(secret, at(now - 90_000), null, now)).toBeNull();
    expect(acceptedStep(secret, at(now + 90_000), null, now)).toBeNull();
  });

  it('refuses a code of the step already used, or an earlier one (no replay)', () => {
    expect(acceptedStep(secret, at(now), step, now)).toBeNull();
    expect(acceptedStep(secret, at(now - 30_000), step, now)).toBeNull();
    expect(acceptedStep(secret, at(now + 30_000), step, now)).toBe(step + 1);
  });

  it('refuses anything but six digits', () => {
    for (const code of ['', '12345', '1234567', 'abcdef', ` ${at(now)}`]) {
      expect(acceptedStep(secret, code, null, now)).toBeNull();
    }
  });

  it('writes the otpauth URI authenticator apps read', () => {
    const uri = totpUri(secret, 'Pelita License', 'a@b.test');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Pelita%20License:a%40b\.test\?/);
    expect(uri).toContain(`secret=${secret}`);
    expect(uri).toContain('digits=6');
    expect(uri).toContain('period=30');
  });
});

describe('recovery codes', () => {
  it('makes ten distinct codes of 50 bits', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
  });

  it('consumes a code once, however it is typed', () => {
    const codes = newRecoveryCodes();
    const hashes = codes.map(hashRecoveryCode);
    const left = consumeRecoveryCode(codes[3]!.toLowerCase().replace('-', ' '), hashes);
    expect(left).toHaveLength(9);
    expect(consumeRecoveryCode(codes[3]!, left!)).toBeNull();
    expect(consumeRecoveryCode('AAAAA-AAAAA', hashes)).toBeNull();
    expect(consumeRecoveryCode('short', hashes)).toBeNull();
  });
});
