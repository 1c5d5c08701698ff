/** What an administrator holds decides what they may grant: glob containment, sure or refused. */
import { grantCovers, heldCovers } from '../../src/access/grant-coverage';

const grant = (method: string, path: string) => ({ method, path });

describe('grantCovers', () => {
  it.each([
    ['GET', '**', 'GET', '/users'],
    ['GET', '**', 'GET', '/users/**'],
    ['get', '/users', 'GET', '/users/'],
    ['GET', '/users/*', 'GET', '/users/42'],
    ['GET', '/users/*', 'GET', '/users/*'],
    ['GET', '/users/**', 'GET', '/users/42/photo'],
    ['GET', '/users/**', 'GET', '/users/*/photo'],
    ['GET', '/a/x*', 'GET', '/a/xyz'],
  ])('%s %s covers %s %s', (om, op, im, ip) => {
    expect(grantCovers(grant(om, op), grant(im, ip))).toBe(true);
  });

  it.each([
    ['GET', '**', 'DELETE', '/users'],
    ['GET', '/users', 'GET', '/users/42'],
    ['GET', '/users/*', 'GET', '/users/**'],
    ['GET', '/users/*', 'GET', '/users/42/photo'],
    ['GET', '/users/**', 'GET', '/users'],
    ['GET', '/users/**', 'GET', '**'],
    ['GET', '/a/x*', 'GET', '/a/*'],
    ['GET', '/a/x*', 'GET', '/a/y'],
    ['GET', '/a/**/b', 'GET', '/a/c/b'],
    ['GET', '/a/*', 'GET', '/b/c'],
  ])('%s %s does not cover %s %s', (om, op, im, ip) => {
    expect(grantCovers(grant(om, op), grant(im, ip))).toBe(false);
  });

  it('covers when any held grant does', () => {
    const held = [grant('GET', '/roles'), grant('POST', '/users/*')];
    expect(heldCovers(held, grant('POST', '/users/7'))).toBe(true);
    expect(heldCovers(held, grant('GET', '/users'))).toBe(false);
    expect(heldCovers([], grant('GET', '/'))).toBe(false);
  });
});
