import { describe, expect, it } from 'vitest';
import { EXPORTS } from '../../../src/core/contract.js';
import { pathProblem } from '../../../src/capabilities/exportFile.js';

/** What `export_data` refuses in a path before anyone is asked (issue 27), on Linux and on Windows. */
describe('pathProblem', () => {
  it.each([
    ['/tmp/out.csv', undefined],
    [`/tmp/${'n'.repeat(EXPORTS.maxNameBytes)}`, undefined],
    ['/tmp/con.csv', undefined],
    ['/tmp/a:b?.csv', undefined],
    ['/tmp/a\\b.csv', undefined],
    ['/tmp/out\u0000.csv', 'path must not contain a control character (U+0000)'],
    ['/tmp/out\u007f.csv', 'path must not contain a control character (U+007F)'],
    [`/tmp/${'n'.repeat(EXPORTS.maxNameBytes + 1)}`, `the name ${'n'.repeat(20)}… is 256 bytes long; a file or directory name may have at most 255`],
    [`/${'d'.repeat(200)}`.repeat(21), 'path is 4221 bytes long; at most 4095 are allowed'],
  ])('on Linux, %j: %s', (path, problem) => {
    expect(pathProblem(path, 'linux')).toBe(problem);
  });

  it.each([
    ['C:\\Users\\me\\out.csv', undefined],
    ['C:\\Users\\me\\CON', 'CON is the name of a device on Windows, not of a file'],
    ['C:\\Users\\me\\nul.txt', 'nul.txt is the name of a device on Windows, not of a file'],
    ['C:\\Users\\me\\com1.csv', 'com1.csv is the name of a device on Windows, not of a file'],
    ['C:\\Users\\me\\a?.csv', 'path must not contain ? on Windows'],
    ['C:\\Users\\me\\a:b.csv', 'path must not contain : on Windows'],
    [`C:\\Users\\${'n'.repeat(256)}\\out.csv`, `the name ${'n'.repeat(20)}… is 256 bytes long; a file or directory name may have at most 255`],
  ])('on Windows, %j: %s', (path, problem) => {
    expect(pathProblem(path, 'win32')).toBe(problem);
  });
});
