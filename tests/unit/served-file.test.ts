import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gunzippedScript, isServedFile } from '../../src/lib/served-file';

const SCRIPT = 'export default function createPyodideModule() {}\n';

describe('files a static host serves', () => {
  it('tells the file asked for from a missing one and from an HTML page in its place', () => {
    expect(isServedFile(new Response(SCRIPT, { headers: { 'Content-Type': 'text/javascript' } }))).toBe(true);
    expect(isServedFile(new Response(new Uint8Array([1, 2])))).toBe(true);
    expect(isServedFile(new Response('not found', { status: 404 }))).toBe(false);
    expect(isServedFile(new Response('<!doctype html>', { headers: { 'Content-Type': 'text/html; charset=utf-8' } }))).toBe(false);
    expect(isServedFile(null)).toBe(false);
  });

  it("reads Pyodide's script from its gzip copy, as sent or already decoded by the browser, and refuses a fallback page", async () => {
    const gzipped = new Response(gzipSync(SCRIPT), { headers: { 'Content-Type': 'application/gzip' } });
    expect(await (await gunzippedScript(gzipped))!.text()).toBe(SCRIPT);
    // A host that sends it with Content-Encoding: gzip has the browser decode it first.
    expect(await (await gunzippedScript(new Response(SCRIPT)))!.text()).toBe(SCRIPT);
    expect(await gunzippedScript(new Response('<!doctype html><title>Home</title>', { headers: { 'Content-Type': 'text/html' } }))).toBeNull();
    expect(await gunzippedScript(new Response('', { status: 404 }))).toBeNull();
  });
});
