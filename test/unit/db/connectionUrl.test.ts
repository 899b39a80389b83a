import { describe, expect, it } from 'vitest';
import { ConfigError, parseConnection, withoutPassword } from '../../../src/db/connections/savedConnections.js';
import { displayUrl, parseServerUrl } from '../../../src/db/connections/connectionUrl.js';

describe('parseServerUrl', () => {
  it('reads PostgreSQL and MySQL URLs, with default ports and decoded credentials', () => {
    expect(parseServerUrl('postgres://app:p%40ss@db.local/shop')).toEqual({
      engine: 'postgres',
      host: 'db.local',
      port: 5432,
      user: 'app',
      password: 'p@ss',
      database: 'shop',
    });
    expect(parseServerUrl('postgresql://u@127.0.0.1:6543/x')).toMatchObject({ engine: 'postgres', port: 6543 });
    expect(parseServerUrl('mysql://root@127.0.0.1/test')).toMatchObject({ engine: 'mysql', port: 3306, password: '' });
    expect(parseServerUrl('mariadb://root@[::1]:3307/test')).toMatchObject({ engine: 'mysql', host: '::1', port: 3307 });
  });

  it.each(['sqlite:///tmp/x.db', 'postgres://db.local', 'postgres://db.local/', 'mysql:///test', 'not a url', 'postgres://h/a/b'])(
    'refuses %s',
    (text) => {
      expect(parseServerUrl(text)).toBeUndefined();
    },
  );

  it('shows a URL without its password', () => {
    expect(displayUrl('postgres://app:hunter2@db.local:5432/shop')).toBe('postgres://app:***@db.local:5432/shop');
    expect(displayUrl('mysql://root@127.0.0.1/test')).toBe('mysql://root@127.0.0.1/test');
  });
});

describe('saved server connections', () => {
  const base = { id: 'prod', name: 'Production' };

  it('need a URL of their own engine', () => {
    expect(parseConnection({ ...base, engine: 'postgres', url: 'postgres://u:pw@h/db' }, 'c')).toMatchObject({
      engine: 'postgres',
      url: 'postgres://u:pw@h/db',
      externalAccess: 'readOnly',
      aiPolicy: 'askEachTime',
    });
    expect(() => parseConnection({ ...base, engine: 'postgres', url: 'mysql://u@h/db' }, 'c')).toThrow(
      new ConfigError('c.url must be a postgres:// URL with a host and a database'),
    );
    expect(() => parseConnection({ ...base, engine: 'oracle', url: 'x' }, 'c')).toThrow(ConfigError);
  });

  it('leave the process without their password', () => {
    const saved = parseConnection({ ...base, engine: 'mysql', url: 'mysql://root:hunter2@h/db' }, 'c');
    expect(withoutPassword(saved)).toMatchObject({ url: 'mysql://root:***@h/db' });
    expect(JSON.stringify(withoutPassword(saved))).not.toContain('hunter2');
  });
});
