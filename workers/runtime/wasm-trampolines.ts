/** Largest module compiled once per set of bytes: Emscripten's trampolines are under 100 bytes; Pyodide's own module is megabytes. */
const SMALL_MODULE_BYTES = 1024;

/**
 * For the length of one load, compiles each small wasm module once per set of bytes. While
 * Pyodide links itself, Emscripten wraps each JavaScript function it puts into the wasm table
 * in a module of its own (`convertJsFunctionToWasm`, where the engine has no
 * `WebAssembly.Function`): in Pyodide 314, 260 compiles per load of 29 distinct modules, 2.2 s
 * of the workers' CPU in a Chromium trace of 30 graded hand-ins. A module is stateless and
 * each wrapper still gets an instance of its own, so the same compiled module serves every
 * wrapper of one signature. Hand-written: no library covers it. Returns the way to put
 * `WebAssembly.Module` back.
 */
export function compileSmallModulesOnce(): () => void {
  const original = WebAssembly.Module;
  const compiled = new Map<string, WebAssembly.Module>();
  WebAssembly.Module = new Proxy(original, {
    construct(target, args: [BufferSource], newTarget) {
      const bytes = viewOf(args[0]);
      if (!bytes || bytes.byteLength > SMALL_MODULE_BYTES || newTarget !== WebAssembly.Module) return Reflect.construct(target, args, newTarget);
      const key = String.fromCharCode(...bytes);
      let module = compiled.get(key);
      if (!module) compiled.set(key, (module = new target(args[0])));
      return module;
    },
  });
  return () => {
    WebAssembly.Module = original;
  };
}

function viewOf(source: BufferSource | undefined): Uint8Array | null {
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return null;
}
