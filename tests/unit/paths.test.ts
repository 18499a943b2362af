import { describe, it, expect } from 'vitest';
import { validateExistingPath, validateWorkspacePath, MAX_PATH_LENGTH } from '../../src/lib/paths';
import { quoteName } from '../../src/lib/quote-name';

describe('validateWorkspacePath', () => {
  it('accepts plain and nested names', () => {
    expect(validateWorkspacePath('data.csv')).toBe('data.csv');
    expect(validateWorkspacePath('out/plots/fig 1.png')).toBe('out/plots/fig 1.png');
    expect(validateWorkspacePath('données-été.xlsx')).toBe('données-été.xlsx');
  });

  it.each([
    ['', 'empty'],
    ['../x', 'leave the workspace'],
    ['a/../../x', 'leave the workspace'],
    ['..', 'leave the workspace'],
    ['/etc/passwd', 'absolute path'],
    ['a\\b', 'backslash'],
    ['a\u0000b', 'control characters'],
    ['line\nbreak', 'control characters'],
    ['a//b', 'empty or "."'],
    ['./a', 'empty or "."'],
    ['<script>.txt', 'not allowed'],
    ['x'.repeat(MAX_PATH_LENGTH + 1), 'at most'],
    ['x'.repeat(5000), 'at most'],
  ])('rejects %j with a clear message', (name, message) => {
    expect(() => validateWorkspacePath(name)).toThrow(message);
  });
});

describe('validateExistingPath', () => {
  it('finds names Python may write that a new name may not have', () => {
    for (const name of ['<img src=x onerror=alert(1)>.txt', 'what?.csv', 'a\\b.txt', 'tab\there', 'x'.repeat(300)]) {
      expect(validateExistingPath(name)).toBe(name);
      expect(() => validateWorkspacePath(name)).toThrow();
    }
  });

  it.each([
    ['', 'empty'],
    ['../x', 'leave the workspace'],
    ['a/../../x', 'leave the workspace'],
    ['/etc/passwd', 'absolute path'],
    ['a\u0000b', 'NUL'],
    ['a//b', 'empty or "."'],
  ])('still refuses %j', (name, message) => {
    expect(() => validateExistingPath(name)).toThrow(message);
  });
});

describe('quoteName', () => {
  it('shows every invisible character of a name as its escape, and leaves the rest as it is', () => {
    expect(quoteName('bad\x07name.txt')).toBe('"bad\\x07name.txt"');
    expect(quoteName('a\u0000b\tc\nd\x7fe\x9bf')).toBe('"a\\x00b\\x09c\\x0ad\\x7fe\\x9bf"');
    // Zero-width, bidirectional overrides (a name that reads "txt.exe" backwards), the BOM, a line separator, a lone surrogate.
    expect(quoteName('a\u200bb\u202etxt.exe\ufeff\u2028\ud800')).toBe('"a\\u200bb\\u202etxt.exe\\ufeff\\u2028\\ud800"');
    expect(quoteName('données-été 😀 (1).xlsx')).toBe('"données-été 😀 (1).xlsx"');
  });

  it('is used by the refusals that name a file', () => {
    expect(() => validateExistingPath('bad\x07name/../../x')).toThrow('"bad\\x07name/../../x" would leave the workspace');
    expect(() => validateExistingPath('/bad\x1bname')).toThrow('"/bad\\x1bname" is an absolute path');
  });
});
