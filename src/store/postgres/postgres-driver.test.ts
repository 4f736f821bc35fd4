import { describe, expect, it } from 'vitest';
import { codeOf } from '../../core/errors.test-support.js';
import { PostgresDriver } from './postgres-driver.js';
import { TEST_POSTGRES_URL, withDatabase } from './postgres-scratch.test-support.js';

// A database that refuses the connection at sign-in is one the store cannot use now:
// STORE_UNAVAILABLE (503), whether the call is a plain query or a transaction, never
// the driver's raw error (a 500).
describe('PostgresDriver on a database it cannot sign in to', () => {
  const missing = withDatabase(TEST_POSTGRES_URL, 'hp_no_such_database');

  it('answers STORE_UNAVAILABLE to a query', async () => {
    const driver = new PostgresDriver({ url: missing });
    try {
      expect(await codeOf(driver.query('SELECT 1'))).toBe('STORE_UNAVAILABLE');
    } finally {
      await driver.close();
    }
  });

  it('answers STORE_UNAVAILABLE to a transaction', async () => {
    const driver = new PostgresDriver({ url: missing });
    try {
      const done = driver.transaction((tx) => tx.query('SELECT 1'));
      expect(await codeOf(done)).toBe('STORE_UNAVAILABLE');
    } finally {
      await driver.close();
    }
  });
});
