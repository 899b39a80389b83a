import { describe, expect, it } from 'vitest';
import { insertReturns, isMariadb } from '../../../src/db/engines/mysql/mysqlServerVersion.js';

describe('what a MySQL or MariaDB server can do, by its VERSION()', () => {
  it('tells MariaDB from MySQL', () => {
    expect(['10.11.19-MariaDB-0+deb12u1', '5.5.5-10.6.16-MariaDB', '8.0.36', '8.4.0-log'].map(isMariadb)).toEqual([true, true, false, false]);
  });

  it('lets an INSERT return its rows on MariaDB 10.5 and later only', () => {
    const versions = ['10.4.32-MariaDB', '10.5.0-MariaDB', '10.11.19-MariaDB-0+deb12u1', '11.4.2-MariaDB', '8.0.36', '9.1.0'];
    expect(versions.map(insertReturns)).toEqual([false, true, true, true, false, false]);
  });
});
