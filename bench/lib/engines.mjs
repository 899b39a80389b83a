// The database servers the benchmark uses when they answer: PostgreSQL and MySQL (or MariaDB).
import mysql from 'mysql2/promise';
import pg from 'pg';

export const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** A connected `pg` client, or the reason there is none. */
export async function postgresClient() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return { client };
  } catch (error) {
    await client.end().catch(() => {});
    return { reason: `PostgreSQL at ${POSTGRES_URL.replace(/\/\/[^@]*@/, '//')} did not answer: ${error.message}` };
  }
}

/** Undefined when MySQL answers, else the reason it is skipped. */
export async function mysqlDown() {
  try {
    const connection = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
    await connection.end();
    return undefined;
  } catch (error) {
    return `MySQL at ${MYSQL_URL.replace(/\/\/[^@]*@/, '//')} did not answer: ${error.message}`;
  }
}
