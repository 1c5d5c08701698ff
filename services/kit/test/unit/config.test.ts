import { z } from 'zod';
import {
  baseSettings,
  booleanSetting,
  commaList,
  ConfigError,
  httpUrl,
  loadConfig,
  optionalHttpUrl,
  optionalPort,
  optionalSetting,
} from '../../src/config';
import { errorMessage } from '../../src/error-message';

const schema = baseSettings.extend({
  DATABASE_PASSWORD: z.string().min(12),
  ALLOWED: commaList,
});

describe('loadConfig', () => {
  it('applies defaults and coerces numbers', () => {
    const config = loadConfig(schema, {
      DATABASE_PASSWORD: 'long-enough-pw',
      ALLOWED: ' a, b,,c ',
    });
    expect(config).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info', ALLOWED: ['a', 'b', 'c'] });
  });

  it('names every bad setting and never echoes its value', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', DATABASE_PASSWORD: 'short-pw' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid settings: /);
    expect(message).toContain('PORT');
    expect(message).toContain('DATABASE_PASSWORD');
    expect(message).not.toContain('short-pw');
    expect(message).not.toContain('eighty');
  });
});

describe('setting helpers', () => {
  const schema = z.object({
    TOKEN: optionalSetting,
    BASE_URL: httpUrl,
    OTHER_URL: optionalHttpUrl,
    NODE_PORT: optionalPort,
    SECURE: booleanSetting.default(false),
  });

  it('treat an empty value as unset', () => {
    const config = loadConfig(schema, {
      TOKEN: '',
      BASE_URL: 'http://user-service:3000',
      OTHER_URL: '',
      NODE_PORT: '',
    });
    expect(config).toEqual({
      TOKEN: undefined,
      BASE_URL: 'http://user-service:3000',
      OTHER_URL: undefined,
      NODE_PORT: undefined,
      SECURE: false,
    });
  });

  it('strip trailing slashes from URLs and accept only http(s)', () => {
    const config = loadConfig(schema, {
      BASE_URL: 'https://opa.local:8181//',
      OTHER_URL: 'http://x/api/',
      NODE_PORT: '3666',
      SECURE: 'TRUE',
    });
    expect(config).toMatchObject({
      BASE_URL: 'https://opa.local:8181',
      OTHER_URL: 'http://x/api',
      NODE_PORT: 3666,
      SECURE: true,
    });
    expect(() => loadConfig(schema, { BASE_URL: 'ftp://files.local' })).toThrow(/BASE_URL/);
    expect(() => loadConfig(schema, { BASE_URL: 'http://x', NODE_PORT: '70000' })).toThrow(
      /NODE_PORT/,
    );
  });
});

describe('errorMessage', () => {
  it("is an Error's message, or the string form of anything else thrown", () => {
    expect(errorMessage(new TypeError('bad type'))).toBe('bad type');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
  });
});
