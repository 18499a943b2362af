/** Hands bytes to the browser as a download named `name` (the browser's own save flow). */
export function saveFile({ name, data }: { name: string; data: Uint8Array }, type = 'application/zip'): void {
  const url = URL.createObjectURL(new Blob([data as BlobPart], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  // Revoked later: the download reads the Blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
