import { deflateSync } from 'fflate';

/**
 * A session packed for a URL fragment: base64url of raw DEFLATE of UTF-8 JSON
 * `{ "name": string, "cells": string[], "files": [{ "path": string, "text": string }] }`.
 * Free of the app's other modules, so the embed client (src/embed-client) packs code with it too.
 */
export const SHARE_VERSION = 1;

export interface SharedFile {
  path: string;
  text: string;
}

/** What a shared link carries: the session's name, its cells as typed in order, its text files. */
export interface SharedSession {
  name: string;
  cells: string[];
  files: SharedFile[];
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  // In slices: one call with every byte as an argument overflows the stack on long input.
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The `z=` value for a session, and how many bytes its JSON has (what the reader's caps count). */
export function packShare(session: SharedSession): { data: string; bytes: number } {
  const json = new TextEncoder().encode(JSON.stringify({ name: session.name, cells: session.cells, files: session.files }));
  return { data: toBase64Url(deflateSync(json, { level: 9 })), bytes: json.byteLength };
}
