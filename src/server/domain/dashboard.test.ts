import { describe, expect, it } from 'vitest';
import { signInBucket } from './dashboard.js';

describe('signInBucket', () => {
  it('counts IPv4 by address, IPv6 by its /64, an IPv4-mapped address as IPv4, and no address as one bucket', () => {
    expect(signInBucket('192.0.2.1')).toBe('dashboard-sign-in:192.0.2.1');
    expect(signInBucket('::ffff:192.0.2.1')).toBe('dashboard-sign-in:192.0.2.1');
    expect(signInBucket('::FFFF:192.0.2.1')).toBe('dashboard-sign-in:192.0.2.1');
    for (const address of ['2001:db8::1', '2001:0DB8:0000:0000:ffff:1:2:3', '2001:db8:0:0::', '2001:db8::1%eth0']) {
      expect(signInBucket(address), address).toBe('dashboard-sign-in:2001:db8:0:0::/64');
    }
    expect(signInBucket('2001:db8:1:2:3:4:5:6')).toBe('dashboard-sign-in:2001:db8:1:2::/64');
    expect(signInBucket('2001:db8:1:3::1')).not.toBe(signInBucket('2001:db8:1:2::1'));
    expect(signInBucket('::1')).toBe('dashboard-sign-in:0:0:0:0::/64');
    expect(signInBucket('64:ff9b::192.0.2.1')).toBe('dashboard-sign-in:64:ff9b:0:0::/64');
    expect(signInBucket(undefined)).toBe('dashboard-sign-in:unknown');
  });
});
