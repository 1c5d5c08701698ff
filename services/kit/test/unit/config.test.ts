import { z } from 'zod';
import { baseSettings, commaList, ConfigError, loadConfig } from '../../src/config';

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
