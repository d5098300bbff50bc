import { describe, expect, it } from 'vitest';
import { defaultSqliteDriver, isUniqueViolation, openSqlite } from './sqlite-driver.js';

describe('the SQLite driver', () => {
  it('is node:sqlite from Node.js 24 on and better-sqlite3 before', () => {
    expect(defaultSqliteDriver('20.19.0')).toBe('better-sqlite3');
    expect(defaultSqliteDriver('22.12.0')).toBe('better-sqlite3');
    expect(defaultSqliteDriver('24.11.0')).toBe('node:sqlite');
    expect(defaultSqliteDriver('25.0.0')).toBe('node:sqlite');
    expect(openSqlite(':memory:', { busyTimeoutMs: 100 }).driver).toBe(defaultSqliteDriver());
  });

  it('survives the garbage collection of statements it prepared and dropped', () => {
    // With better-sqlite3 12 on Node.js 24 this aborted the whole process (an assertion in Node's
    // environment clean-up hooks, from the collected statement's destructor): the test run died here.
    const db = openSqlite(':memory:', { busyTimeoutMs: 100 });
    for (let i = 0; i < 100; i++) expect(db.prepare('SELECT ? AS n').get(i)).toEqual({ n: i });
    let garbage: { i: number }[] = [];
    for (let i = 0; i < 1_000_000; i++) garbage.push({ i });
    garbage = [];
    db.close();
    expect(db.open).toBe(false);
  });

  it('commits an immediate transaction that returns and rolls back one that throws', () => {
    const db = openSqlite(':memory:', { busyTimeoutMs: 100 });
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER)');
    const insert = db.prepare('INSERT INTO t (id, n) VALUES (@id, @n)');
    expect(db.immediate(() => insert.run({ id: 'a', n: 1 }).changes)).toBe(1);
    expect(() =>
      db.immediate(() => {
        insert.run({ id: 'b', n: 2 });
        insert.run({ id: 'a', n: 3 });
      }),
    ).toThrow();
    expect(db.prepare('SELECT id, n FROM t ORDER BY id').all()).toEqual([{ id: 'a', n: 1 }]);
    // A new transaction starts cleanly after the rolled-back one.
    db.immediate(() => insert.run({ id: 'c', n: 4 }));
    expect(db.prepare('SELECT COUNT(*) AS c FROM t').get()).toEqual({ c: 2 });
    db.close();
  });

  it('rolls back a transaction whose commit fails, so the connection is not left inside it', () => {
    const db = openSqlite(':memory:', { busyTimeoutMs: 100 });
    db.exec(`CREATE TABLE p (id TEXT PRIMARY KEY);
      CREATE TABLE c (id TEXT PRIMARY KEY, p TEXT REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED);
      PRAGMA foreign_keys = ON;`);
    const insertChild = db.prepare('INSERT INTO c (id, p) VALUES (?, ?)');
    // The deferred foreign key is checked at COMMIT: the commit itself fails.
    expect(() => db.immediate(() => insertChild.run('c1', 'missing'))).toThrow();
    db.immediate(() => db.prepare('INSERT INTO p (id) VALUES (?)').run('p1'));
    db.immediate(() => insertChild.run('c2', 'p1'));
    expect(db.prepare('SELECT id FROM c').all()).toEqual([{ id: 'c2' }]);
    db.close();
  });

  it('runs a nested transaction as a savepoint, and refuses a function that returns a promise', () => {
    const db = openSqlite(':memory:', { busyTimeoutMs: 100 });
    db.exec('CREATE TABLE t (n INTEGER)');
    const insert = db.prepare('INSERT INTO t (n) VALUES (?)');
    db.immediate(() => {
      insert.run(1);
      expect(() =>
        db.immediate(() => {
          insert.run(2);
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      db.immediate(() => insert.run(3));
    });
    expect(db.prepare('SELECT n FROM t ORDER BY n').all()).toEqual([{ n: 1 }, { n: 3 }]);
    expect(() => db.immediate(() => Promise.resolve(insert.run(4)))).toThrow(TypeError);
    expect(db.prepare('SELECT COUNT(*) AS c FROM t').get()).toEqual({ c: 2 });
    db.close();
  });

  it('tells a unique violation apart from other errors, and ignores parameters a statement does not name', () => {
    const db = openSqlite(':memory:', { busyTimeoutMs: 100 });
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT UNIQUE, n INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t (id, name, n) VALUES (@id, @name, @n)');
    insert.run({ id: 'a', name: 'x', n: 1, unused: 'ignored' });
    const caught = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      throw new Error('expected an error');
    };
    // A primary-key clash is not a unique violation (a colliding id is an error, not a refusal).
    expect(isUniqueViolation(caught(() => insert.run({ id: 'a', name: 'y', n: 1 })))).toBe(false);
    expect(isUniqueViolation(caught(() => insert.run({ id: 'b', name: 'x', n: 1 })))).toBe(true);
    expect(isUniqueViolation(caught(() => insert.run({ id: 'c', name: 'z', n: null })))).toBe(false);
    db.close();
  });
});
