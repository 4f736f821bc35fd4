import type {
  SqlDriver,
  SqlParam,
  SqlQueries,
  SqlResult,
  SqlValue,
} from '../src/store/sql/sql-driver.js';

/** One statement a store sent, as sent. */
export interface SentStatement {
  sql: string;
  params: SqlValue[];
}

/**
 * A SQL driver that passes everything to `inner` and counts what the store sends:
 * every statement, alone or inside a transaction (BEGIN and COMMIT not counted), and
 * every transaction. The last statement is kept, so the bench can EXPLAIN exactly what
 * a store call ran.
 */
export class CountingDriver implements SqlDriver {
  readonly dialect: SqlDriver['dialect'];
  readonly relay: SqlDriver['relay'];
  statements = 0;
  transactions = 0;
  /** The statements sent since `record` was last called with a list. */
  private recorded: SentStatement[] | undefined;

  constructor(private readonly inner: SqlDriver) {
    this.dialect = inner.dialect;
    this.relay = inner.relay;
  }

  query(sql: string, params?: SqlValue[]): Promise<SqlResult> {
    this.count(sql, params);
    return this.inner.query(sql, params);
  }

  write(sql: string, params?: SqlParam[]): Promise<SqlResult> {
    this.count(sql);
    return this.inner.write(sql, params);
  }

  transaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    this.transactions += 1;
    return this.inner.transaction((tx) => work(this.counted(tx)));
  }

  schemaTransaction<T>(work: (tx: SqlQueries) => Promise<T>): Promise<T> {
    this.transactions += 1;
    return this.inner.schemaTransaction((tx) => work(this.counted(tx)));
  }

  databaseBytes(): Promise<number | undefined> {
    return this.inner.databaseBytes();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The statements `call` sends through this driver, in order. */
  async statementsOf(call: () => Promise<unknown>): Promise<SentStatement[]> {
    const sent: SentStatement[] = [];
    this.recorded = sent;
    try {
      await call();
    } finally {
      this.recorded = undefined;
    }
    return sent;
  }

  private counted(tx: SqlQueries): SqlQueries {
    return {
      query: (sql, params) => {
        this.count(sql, params);
        return tx.query(sql, params);
      },
    };
  }

  private count(sql: string, params: SqlValue[] = []): void {
    this.statements += 1;
    this.recorded?.push({ sql, params });
  }
}
