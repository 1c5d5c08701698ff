import type { Request } from 'express';
import { basicCredentials } from '../../src/auth/basic-credentials';
import { readCookie } from '../../src/auth/cookies';
import { sameOrigin, sameToken } from '../../src/auth/csrf';
import { html, trusted } from '../../src/dashboard/html';
import { clientForm } from '../../src/records/clients';
import { parseForm } from '../../src/records/form-input';
import { licenseForm } from '../../src/records/licenses';
import { mappingForm } from '../../src/records/mappings';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as Request;

describe('HTML templates', () => {
  it('escape every interpolated value, and only trusted markup passes as is', () => {
    const name = `<script>alert("x")</script>' onload='`;
    expect(html`<td title="${name}">${name}</td>`.text).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;</td>',
    );
    expect(html`${trusted('<svg></svg>')}${[1, null, false, undefined, 'a']}`.text).toBe(
      '<svg></svg>1a',
    );
  });
});

describe('dashboard forms', () => {
  it('parse a client form: trimmed text, ticked boxes, empty numbers as null', () => {
    const parsed = parseForm(clientForm, {
      name: '  Acme ',
      email: '',
      max_user: '',
      is_active: 'on',
    });
    expect(parsed).toEqual({
      ok: true,
      values: {
        name: 'Acme',
        company_name: '',
        email: '',
        phone: '',
        address: '',
        is_active: true,
        max_user: null,
      },
    });
    expect(parseForm(clientForm, { name: 'A' })).toMatchObject({
      ok: true,
      values: { is_active: false },
    });
  });

  it('name each wrong field with its own message', () => {
    expect(parseForm(clientForm, { name: '', email: 'x', max_user: '-1' })).toEqual({
      ok: false,
      errors: { name: 'Required', email: 'Not an e-mail address', max_user: 'At least 0' },
    });
    expect(
      parseForm(licenseForm, { license_name: 'L', qty: '1.5', activated_date: '2026-13-45' }),
    ).toMatchObject({
      ok: false,
      errors: { qty: 'Must be a whole number', activated_date: 'Not a date' },
    });
  });

  it('require a branch for a frontend mapping, and a secret only when creating', () => {
    const mapping = {
      type: 'frontend',
      project_id: 'p',
      client_id: 'c',
      client_secret: '',
      client_env: 'prod',
      path: '/',
    };
    expect(parseForm(mappingForm(true), mapping)).toEqual({
      ok: false,
      errors: { client_secret: 'Required', branch_source: expect.stringContaining('Required') },
    });
    expect(parseForm(mappingForm(false), mapping)).toMatchObject({
      ok: false,
      errors: { branch_source: expect.any(String) },
    });
    expect(parseForm(mappingForm(false), { ...mapping, branch_source: 'main' })).toMatchObject({
      ok: true,
    });
    expect(
      parseForm(mappingForm(false), { ...mapping, path: '../etc', branch_source: 'main' }),
    ).toMatchObject({ ok: false });
  });
});

describe('request checks', () => {
  it('compare anti-forgery tokens exactly', () => {
    expect(sameToken('abc', 'abc')).toBe(true);
    expect(sameToken('abd', 'abc')).toBe(false);
    expect(sameToken('ab', 'abc')).toBe(false);
    expect(sameToken(['abc'], 'abc')).toBe(false);
    expect(sameToken(undefined, 'abc')).toBe(false);
  });

  it('refuse a form whose Origin is another site', () => {
    expect(sameOrigin(request({ host: 'lic.test' }))).toBe(true);
    expect(sameOrigin(request({ host: 'lic.test', origin: 'https://lic.test' }))).toBe(true);
    expect(sameOrigin(request({ host: 'lic.test', origin: 'https://evil.test' }))).toBe(false);
    expect(sameOrigin(request({ host: 'lic.test', origin: 'null' }))).toBe(false);
  });

  it('read Basic credentials, a password with colons included', () => {
    const header = `Basic ${Buffer.from('a@b.test:pa:ss').toString('base64')}`;
    expect(basicCredentials(header)).toEqual({ user: 'a@b.test', password: 'pa:ss' });
    expect(basicCredentials('Bearer x')).toBeNull();
    expect(basicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeNull();
    expect(basicCredentials(undefined)).toBeNull();
  });

  it('read one cookie among several', () => {
    expect(readCookie(request({ cookie: 'a=1; __Host-s=x%3Dy; b=2' }), '__Host-s')).toBe('x=y');
    expect(readCookie(request({ cookie: 'a=1' }), 'b')).toBeUndefined();
  });
});
