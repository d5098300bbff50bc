import { describe, expect, it } from 'vitest';
import { formatDuration, signInBucket, textSnippet } from './dashboard.js';

describe('formatDuration', () => {
  it('shows m:ss, or h:mm:ss from an hour on, to the nearest second', () => {
    expect(formatDuration(992.7)).toBe('16:33');
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(2.4)).toBe('0:02');
    expect(formatDuration(59.6)).toBe('1:00');
    expect(formatDuration(3599.4)).toBe('59:59');
    expect(formatDuration(3723)).toBe('1:02:03');
  });
});

describe('textSnippet', () => {
  it('keeps a short text whole, cuts a long one at 60 characters with an ellipsis, and joins whitespace', () => {
    expect(textSnippet('Hello.')).toBe('Hello.');
    expect(textSnippet('a'.repeat(60))).toBe('a'.repeat(60));
    expect(textSnippet('a'.repeat(61))).toBe(`${'a'.repeat(60)}…`);
    expect(textSnippet('  one\n\n two\tthree ')).toBe('one two three');
    // Characters, not UTF-16 units: an emoji is never split.
    expect(textSnippet('😀'.repeat(61))).toBe(`${'😀'.repeat(60)}…`);
  });
});

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
