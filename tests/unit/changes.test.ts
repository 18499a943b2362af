import { describe, expect, it } from 'vitest';
import { ALL_PARTS, ChangeSet } from '../../src/lib/sessions/changes';

describe('ChangeSet', () => {
  it('keeps each session to the parts its changes touched, and adds up counted runs', () => {
    const set = new ChangeSet();
    set.add({ sessionId: 'b', parts: [], runs: 1 });
    set.add({ sessionId: 'b', parts: ['state'], runs: 2 });
    set.add({ sessionId: 'a', parts: ['files'] });
    expect([...set.of('a')]).toEqual(['files']);
    expect([...set.of('b')]).toEqual(['state']);
    expect(set.of('c').size).toBe(0);
    expect(set.runs.get('b')).toBe(3);
    expect(set.records).toBe(false);
  });

  it('reads records once a change touched one, and everything after a change of no session', () => {
    const set = new ChangeSet();
    set.add({ sessionId: 'a', parts: ['record'] });
    expect(set.records).toBe(true);
    set.add({ sessionId: null, parts: ALL_PARTS });
    expect([...set.of('z')].sort()).toEqual([...ALL_PARTS].sort());
  });

  it('merges another set, runs of sessions with no other part included', () => {
    const set = new ChangeSet();
    set.add({ sessionId: 'a', parts: ['variables'], runs: 1 });
    const later = new ChangeSet();
    later.add({ sessionId: 'a', parts: ['files'], runs: 1 });
    later.add({ sessionId: 'b', parts: [], runs: 4 });
    set.merge(later);
    expect([...set.of('a')].sort()).toEqual(['files', 'variables']);
    expect([set.runs.get('a'), set.runs.get('b'), set.everything]).toEqual([2, 4, false]);
  });
});
