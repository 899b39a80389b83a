import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { sshHostConfig } from '../../../src/db/reach/sshConfig.js';
import { parseSshHop } from '../../../src/db/reach/sshOptions.js';

/** The home directory `~` stands for: never the real one. */
const HOME = '/home/zoe';

const CONFIG = `
# company hosts
Host db-bastion
  HostName bastion.example.com
  User jump
  Port 2222

Host prod-* !prod-legacy
  HostName %h.internal.example.com
  User deploy
  IdentityFile ~/.ssh/prod_ed25519
  ProxyJump db-bastion

Host prod-db1
  User ignored-because-first-value-wins
  Port=2200

Match host *.example.com
  User never-read

Host *
  User fallback
  IdentityFile "/keys/default key"
`;

describe('sshHostConfig', () => {
  it('applies the first value of each keyword from every matching Host block', () => {
    expect(sshHostConfig(CONFIG, 'prod-db1', HOME)).toEqual({
      hostName: 'prod-db1.internal.example.com',
      user: 'deploy',
      identityFile: '/home/zoe/.ssh/prod_ed25519',
      proxyJump: 'db-bastion',
      port: 2200,
    });
  });

  it('honours negated patterns and falls through to Host *', () => {
    expect(sshHostConfig(CONFIG, 'prod-legacy', HOME)).toEqual({ user: 'fallback', identityFile: '/keys/default key' });
  });

  it('reads a jump host alias', () => {
    expect(sshHostConfig(CONFIG, 'db-bastion', HOME)).toEqual({
      hostName: 'bastion.example.com',
      user: 'jump',
      port: 2222,
      identityFile: '/keys/default key',
    });
  });

  it('matches patterns case-insensitively and whole names only', () => {
    expect(sshHostConfig('Host Web?\n  HostName web.example.com\n', 'web1', HOME)).toEqual({ hostName: 'web.example.com' });
    expect(sshHostConfig('Host web?\n  HostName web.example.com\n', 'web12', HOME)).toEqual({});
  });

  it('reads UserKnownHostsFile as OpenSSH does: several files, quotes, ~, %d, %u and %%, or none', () => {
    const config = [
      'Host bastion',
      '  UserKnownHostsFile ~/.ssh/known_hosts "/etc/ssh/team hosts" %d/.ssh/extra_%u 100%%/hosts',
      'Host none-here',
      '  UserKnownHostsFile none',
      'Host *',
      '  UserKnownHostsFile /never/read',
    ].join('\n');
    expect(sshHostConfig(config, 'bastion', HOME)).toEqual({
      userKnownHostsFiles: ['/home/zoe/.ssh/known_hosts', '/etc/ssh/team hosts', `/home/zoe/.ssh/extra_${userInfo().username}`, '100%/hosts'],
    });
    expect(sshHostConfig(config, 'none-here', HOME)).toEqual({ userKnownHostsFiles: [] });
    expect(sshHostConfig(config, 'elsewhere', HOME)).toEqual({ userKnownHostsFiles: ['/never/read'] });
  });

  it('ignores Match blocks, other keywords and invalid ports', () => {
    expect(sshHostConfig('Match all\n  User m\nHost x\n  ForwardAgent yes\n  Port 99999\n', 'x', HOME)).toEqual({});
  });
});

describe('parseSshHop', () => {
  it('reads [user@]host[:port], IPv6 in brackets', () => {
    expect(parseSshHop('deploy@db.example.com:2222')).toEqual({ user: 'deploy', host: 'db.example.com', port: 2222 });
    expect(parseSshHop('bastion')).toEqual({ host: 'bastion' });
    expect(parseSshHop('root@[::1]:22')).toEqual({ user: 'root', host: '::1', port: 22 });
  });

  it('refuses what is not one', () => {
    expect(parseSshHop('a@b@c')).toBeUndefined();
    expect(parseSshHop('host:0')).toBeUndefined();
    expect(parseSshHop('host:70000')).toBeUndefined();
    expect(parseSshHop('')).toBeUndefined();
  });
});
