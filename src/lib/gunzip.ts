/**
 * The body of a `.gz` file, decoded as it streams in, so decoding overlaps the download
 * instead of following it. A host that sends the file with `Content-Encoding: gzip` has
 * the browser decode it already: a body that does not start with gzip's magic bytes
 * passes as it is.
 */
export async function gunzippedBody(body: ReadableStream<Uint8Array<ArrayBuffer>>): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
  const reader = body.getReader();
  const first = await reader.read();
  const whole = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(first.value);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const gzip = !first.done && first.value[0] === 0x1f && first.value[1] === 0x8b;
  return gzip ? whole.pipeThrough(new DecompressionStream('gzip')) : whole;
}
