import {
  parseIp,
  parseRange,
  rangeContains,
  unmapIpv4,
} from '../../../src/target-policy/ip-address';

describe('parseIp', () => {
  it('reads IPv4 and IPv6 in their usual spellings', () => {
    expect(parseIp('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIp('::1')).toEqual({ family: 6, value: 1n });
    expect(parseIp('[::1]')).toEqual({ family: 6, value: 1n });
    expect(parseIp('fe80::1%eth0')).toEqual({ family: 6, value: (0xfe80n << 112n) | 1n });
    expect(parseIp('2001:db8:0:0:0:0:0:1')).toEqual(parseIp('2001:db8::1'));
    expect(parseIp('::ffff:127.0.0.1')).toEqual(parseIp('::ffff:7f00:1'));
  });

  it('returns undefined for anything that is not an address', () => {
    for (const text of ['localhost', '127.1', '1.2.3.4.5', '', ':::', '[127.0.0.1]x']) {
      expect(parseIp(text)).toBeUndefined();
    }
  });
});

describe('parseRange and rangeContains', () => {
  it('matches addresses inside a CIDR range only', () => {
    const range = parseRange('172.16.0.0/12')!;
    expect(rangeContains(range, parseIp('172.31.255.255')!)).toBe(true);
    expect(rangeContains(range, parseIp('172.32.0.0')!)).toBe(false);
    expect(rangeContains(range, parseIp('::ffff:172.16.0.1')!)).toBe(false);
  });

  it('normalises the network and treats a bare address as a range of one', () => {
    expect(parseRange('10.1.2.3/8')).toEqual({ family: 4, network: 0x0a000000n, prefix: 8 });
    const one = parseRange('::1')!;
    expect(one.prefix).toBe(128);
    expect(rangeContains(one, parseIp('::1')!)).toBe(true);
    expect(rangeContains(one, parseIp('::2')!)).toBe(false);
    expect(rangeContains(parseRange('0.0.0.0/0')!, parseIp('8.8.8.8')!)).toBe(true);
  });

  it('rejects malformed ranges', () => {
    for (const text of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/',
      '10.0.0.0/8/1',
      'host/8',
      '1.2.3.4/x',
    ]) {
      expect(parseRange(text)).toBeUndefined();
    }
  });
});

describe('unmapIpv4', () => {
  it('turns an IPv4-mapped IPv6 address into its IPv4 address and leaves others alone', () => {
    expect(unmapIpv4(parseIp('::ffff:10.0.0.1')!)).toEqual(parseIp('10.0.0.1'));
    expect(unmapIpv4(parseIp('64:ff9b::a00:1')!)).toEqual(parseIp('64:ff9b::a00:1'));
    expect(unmapIpv4(parseIp('10.0.0.1')!)).toEqual(parseIp('10.0.0.1'));
  });
});
