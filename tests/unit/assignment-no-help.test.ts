import { describe, it, expect } from 'vitest';
import { encodeAssignment, makeAssignment, readAssignment } from '../../src/lib/portability/assignment-file';

// An assignment's teacher turns error explanations and the assistant off for a test (Assignment.noHelp).

const draft = { title: 'Test 1', instructions: '', starterCode: '', checkSource: 'def check_a():\n    assert a == 1\n', checks: [], timeLimitSeconds: 5 };
const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;

describe('an assignment with help turned off', () => {
  it('keeps noHelp through its file, as version 3, and its digest covers it', async () => {
    const test = await makeAssignment({ ...draft, noHelp: true });
    expect(test.noHelp).toBe(true);
    const file = decode(encodeAssignment(test));
    expect(file.version).toBe(3);
    expect(await readAssignment(file)).toEqual(test);
    // A student who takes the field out of the file gets a refusal, not a test with help on.
    const { noHelp: _, ...helped } = file;
    await expect(readAssignment(helped)).rejects.toThrow(/does not match its digest/);
  });

  it('leaves an assignment without it as it was: no field, the same version and digest', async () => {
    const plain = await makeAssignment(draft);
    const file = decode(encodeAssignment(plain));
    expect('noHelp' in plain).toBe(false);
    expect(file.version).toBe(1);
    expect(plain.digest).toBe((await makeAssignment({ ...draft, noHelp: undefined })).digest);
    expect(plain.digest).not.toBe((await makeAssignment({ ...draft, noHelp: true })).digest);
  });
});
