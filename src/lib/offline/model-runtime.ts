/**
 * Where the local model's runtime (the model worker's script and llama.cpp's wasm) is kept for
 * offline use: the page fills it when a model is kept (local-model/runtime.ts), the service
 * worker serves from it (src/sw.ts). Erased with the rest (portability/erase.ts deletes every cache).
 */
export const MODEL_RUNTIME_CACHE = 'pytabs-model-runtime';

/** Whether a path of this origin is one of the runtime's files; their names carry a hash, so a kept copy is never stale. */
export const isModelRuntimePath = (pathname: string): boolean => /\/assets\/(wllama-[^/]+\.wasm|model\.worker-[^/]+\.js)$/.test(pathname);
