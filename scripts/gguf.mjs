// Writes GGUF v3 files of a real architecture (qwen2 or llama) with random weights and a small
// byte-level BPE tokenizer: no model weights can be downloaded on the machines PyTabs is tested
// on, so the local model's tests and bench run llama.cpp on files made here. A seeded PRNG makes
// every file reproducible. Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
//
//   node scripts/gguf.mjs --shape tiny --out tiny.gguf
//   node scripts/gguf.mjs --shape qwen2.5-0.5b --out qwen-shape.gguf   (about 390 MiB, for the bench)
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** ggml's tensor type ids for the types written here. */
export const GGML_TYPE = /** @type {const} */ ({ f32: 0, f16: 1, q8_0: 8 });

/** GGUF's metadata value types. */
const VALUE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 };

/** llama.cpp's token types. */
const TOKEN_NORMAL = 1;
const TOKEN_CONTROL = 3;
const TOKEN_UNUSED = 5;

export const ALIGNMENT = 32;

/** ChatML, as Qwen2.5's template renders it, without the tool-calling branches. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];

/** The dimensions this script knows by name. */
export const SHAPES = {
  // A few hundred KB: loads and answers in a second in a browser.
  tiny: { architecture: 'qwen2', hidden: 64, blocks: 2, heads: 4, kvHeads: 2, ffn: 128, vocab: 512, context: 2048, type: 'f32' },
  // Qwen2.5-0.5B's dimensions (its vocabulary cut to 32k), quantized as q8_0: for the bench only.
  'qwen2.5-0.5b': { architecture: 'qwen2', hidden: 896, blocks: 24, heads: 14, kvHeads: 2, ffn: 4864, vocab: 32768, context: 32768, type: 'q8_0' },
};

// Text the tokenizer's merges are learned from: code and plain words, as the assistant sees them.
const CORPUS = `
import pandas as pd
df = pd.read_excel("data.xlsx")
print(df.head())
for row in df.itertuples():
    print(row.name, row.value)
def mean(values):
    return sum(values) / len(values)
The model writes the code, the session runs it, and the output goes back to the model.
What are the unique tags in the data? Count the rows and print the total of each column.
The answer is in the table: the first column is the name and the second is the value.
`;

/** mulberry32: small, fast, and the same numbers on every machine for one seed. */
export function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** GPT-2's map of the 256 byte values to printable characters, which byte-level BPE tokens are spelled in. */
export function byteChars() {
  const printable = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const chars = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) chars[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + extra++);
  return chars;
}

/**
 * A byte-level BPE vocabulary: the 256 byte tokens (id = the byte's value), merges learned from CORPUS (at most
 * `size` tokens in all), filler tokens up to `size` when the corpus runs out of pairs, then
 * the special tokens. Every merge's result is a token, as llama.cpp expects.
 */
export function bpeVocabulary(size) {
  const chars = byteChars();
  const tokens = [...chars];
  const merges = [];
  const encoder = new TextEncoder();
  // GPT-2's pre-tokenization, roughly: words keep their leading space.
  const words = new Map();
  for (const word of CORPUS.match(/ ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+/gu) ?? []) {
    const key = [...encoder.encode(word)].map((b) => chars[b]).join('\u0000');
    words.set(key, (words.get(key) ?? 0) + 1);
  }
  let pieces = [...words].map(([key, count]) => ({ parts: key.split('\u0000'), count }));
  const known = new Set(tokens);
  while (tokens.length < size) {
    const pairs = new Map();
    for (const { parts, count } of pieces) {
      for (let i = 0; i + 1 < parts.length; i++) {
        const pair = parts[i] + ' ' + parts[i + 1];
        pairs.set(pair, (pairs.get(pair) ?? 0) + count);
      }
    }
    let best = '';
    let bestCount = 1;
    // Ties go to the pair seen first, so the result does not depend on Map order quirks.
    for (const [pair, count] of pairs) if (count > bestCount) [best, bestCount] = [pair, count];
    if (!best) break;
    const [left, right] = best.split(' ');
    const merged = left + right;
    merges.push(best);
    if (!known.has(merged)) {
      known.add(merged);
      tokens.push(merged);
    }
    pieces = pieces.map(({ parts, count }) => {
      const out = [];
      for (let i = 0; i < parts.length; i++) {
        if (i + 1 < parts.length && parts[i] === left && parts[i + 1] === right) {
          out.push(merged);
          i++;
        } else out.push(parts[i]);
      }
      return { parts: out, count };
    });
  }
  // Spelled in printable ASCII only, which byte-level decoding maps back to bytes.
  for (let n = 0; tokens.length < size; n++) tokens.push(`[filler${n}]`);
  // Bytes 0x80-0xFF are kept (llama.cpp needs a token for every byte) but unused, which
  // llama.cpp never renders as text: random weights would otherwise emit broken UTF-8, which
  // fails the request in wllama 3.13.0 ("invalid UTF-8 byte"). So these models write ASCII.
  const types = tokens.map((_, id) => (id >= 0x80 && id < 256 ? TOKEN_UNUSED : TOKEN_NORMAL));
  for (const special of SPECIAL_TOKENS) {
    tokens.push(special);
    types.push(TOKEN_CONTROL);
  }
  return { tokens, types, merges };
}

class Bytes {
  /** @type {Uint8Array[]} */ parts = [];
  length = 0;
  push(bytes) {
    this.parts.push(bytes);
    this.length += bytes.byteLength;
  }
  scalar(kind, value) {
    const view = new DataView(new ArrayBuffer(8));
    const size = { u32: 4, i32: 4, f32: 4, u64: 8, u8: 1 }[kind];
    if (kind === 'u32') view.setUint32(0, value, true);
    else if (kind === 'i32') view.setInt32(0, value, true);
    else if (kind === 'f32') view.setFloat32(0, value, true);
    else if (kind === 'u64') view.setBigUint64(0, BigInt(value), true);
    else view.setUint8(0, value);
    this.push(new Uint8Array(view.buffer, 0, size));
  }
  string(text) {
    const bytes = new TextEncoder().encode(text);
    this.scalar('u64', bytes.byteLength);
    this.push(bytes);
  }
  concat() {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }
}

/** One metadata value: a JS value and the GGUF type it is written as. */
function writeValue(out, type, value) {
  if (type === 'string') return out.string(value);
  if (type === 'uint32') return out.scalar('u32', value);
  if (type === 'int32') return out.scalar('i32', value);
  if (type === 'float32') return out.scalar('f32', value);
  if (type === 'bool') return out.scalar('u8', value ? 1 : 0);
  throw new Error(`unknown metadata type ${type}`);
}

function writeMetadata(out, key, type, value) {
  out.string(key);
  if (Array.isArray(value)) {
    out.scalar('u32', VALUE.array);
    out.scalar('u32', VALUE[type]);
    out.scalar('u64', value.length);
    for (const item of value) writeValue(out, type, item);
  } else {
    out.scalar('u32', VALUE[type]);
    writeValue(out, type, value);
  }
}

/** float32 to IEEE half bits, rounding to nearest (subnormals kept, overflow to infinity). */
export function toHalf(value) {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  if (exponent >= 31) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    const m = (mantissa | 0x800000) >>> (1 - exponent);
    return sign | ((m + 0x1000) >>> 13);
  }
  return (sign | (exponent << 10) | (mantissa >>> 13)) + ((mantissa >>> 12) & 1);
}

/** Bytes of a tensor of `count` elements in a type. */
export function tensorBytes(type, count) {
  if (type === 'f32') return count * 4;
  if (type === 'f16') return count * 2;
  if (type === 'q8_0') return (count / 32) * 34;
  throw new Error(`unknown tensor type ${type}`);
}

/** Random values of a tensor in its type; `fill` set: every element that value (norms). */
function tensorData(type, count, random, fill) {
  const scale = 0.035; // uniform in [-scale, scale]: a standard deviation of about 0.02
  const value = () => (fill ?? (random() * 2 - 1) * scale);
  const bytes = new Uint8Array(tensorBytes(type, count));
  const view = new DataView(bytes.buffer);
  if (type === 'f32') for (let i = 0; i < count; i++) view.setFloat32(i * 4, value(), true);
  else if (type === 'f16') for (let i = 0; i < count; i++) view.setUint16(i * 2, toHalf(value()), true);
  else {
    // q8_0: blocks of 32 int8 values and their half-precision scale.
    for (let block = 0; block < count / 32; block++) {
      const at = block * 34;
      view.setUint16(at, toHalf(scale / 127), true);
      for (let i = 0; i < 32; i++) view.setInt8(at + 2 + i, Math.round((random() * 2 - 1) * 127));
    }
  }
  return bytes;
}

/**
 * Makes a model of random weights predictable: every token's embedding gets a first component of
 * 1, and the preferred tokens a larger one (3, 2.5, 2, ... in the order given). The random layers
 * barely move the residual stream, so after the final norm that component dominates, and through
 * the output projection (tied to the embeddings) each preferred token outscores every other one
 * by a wide margin, wherever the sampler (or a grammar) allows it.
 */
function preferTokens(data, type, hidden, tokens, prefer) {
  if (type !== 'f32') throw new Error('prefer needs f32 embeddings');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let id = 0; id < tokens.length; id++) view.setFloat32(id * hidden * 4, 1, true);
  prefer.forEach((text, rank) => {
    const spelled = [...new TextEncoder().encode(text)].map((byte) => byteChars()[byte]).join('');
    const id = tokens.indexOf(spelled);
    if (id < 0) throw new Error(`no token ${JSON.stringify(text)} in the vocabulary`);
    view.setFloat32(id * hidden * 4, 3 - rank * 0.5, true);
  });
}

/** The tensors of a qwen2 or llama model: name, dims (innermost first, as ggml has them), type. */
function tensorList(shape) {
  const { hidden, blocks, heads, kvHeads, ffn, type } = shape;
  const kv = (hidden / heads) * kvHeads;
  const vocab = shape.vocabSize;
  const biases = shape.architecture === 'qwen2';
  // The output projection is left out: llama.cpp ties it to token_embd, as Qwen2.5-0.5B does.
  const list = [{ name: 'token_embd.weight', dims: [hidden, vocab], type }];
  for (let i = 0; i < blocks; i++) {
    const b = `blk.${i}.`;
    list.push(
      { name: b + 'attn_norm.weight', dims: [hidden], type: 'f32', fill: 1 },
      { name: b + 'attn_q.weight', dims: [hidden, hidden], type },
      { name: b + 'attn_k.weight', dims: [hidden, kv], type },
      { name: b + 'attn_v.weight', dims: [hidden, kv], type },
      { name: b + 'attn_output.weight', dims: [hidden, hidden], type },
      { name: b + 'ffn_norm.weight', dims: [hidden], type: 'f32', fill: 1 },
      { name: b + 'ffn_gate.weight', dims: [hidden, ffn], type },
      { name: b + 'ffn_up.weight', dims: [hidden, ffn], type },
      { name: b + 'ffn_down.weight', dims: [ffn, hidden], type },
    );
    if (biases)
      list.push(
        { name: b + 'attn_q.bias', dims: [hidden], type: 'f32' },
        { name: b + 'attn_k.bias', dims: [kv], type: 'f32' },
        { name: b + 'attn_v.bias', dims: [kv], type: 'f32' },
      );
  }
  list.push({ name: 'output_norm.weight', dims: [hidden], type: 'f32', fill: 1 });
  return list;
}

const align = (n) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

/**
 * The file as chunks in order (the header, then each tensor's data with its padding), so a
 * large file is written without holding it all. `shape` is a name from SHAPES or dimensions
 * of your own; `architecture` overrides the shape's (an unknown one makes a file that runtimes
 * must refuse); `seed` picks the weights.
 *
 * @param {import('./gguf.d.mts').GgufOptions} options
 */
export function* ggufChunks(options = {}) {
  const base = typeof options.shape === 'object' ? options.shape : SHAPES[options.shape ?? 'tiny'];
  if (!base) throw new Error(`unknown shape ${options.shape}; known: ${Object.keys(SHAPES).join(', ')}`);
  const shape = { ...base, ...(options.architecture ? { architecture: options.architecture } : {}) };
  const arch = shape.architecture;
  const vocabulary = bpeVocabulary(shape.vocab);
  shape.vocabSize = vocabulary.tokens.length;
  const tensors = tensorList(shape);

  const header = new Bytes();
  header.push(new TextEncoder().encode('GGUF'));
  header.scalar('u32', 3);
  header.scalar('u64', tensors.length);
  const endOfText = vocabulary.tokens.indexOf('<|endoftext|>');
  const metadata = [
    ['general.architecture', 'string', arch],
    ['general.name', 'string', options.name ?? `PyTabs test model (${arch}, random weights)`],
    ['general.alignment', 'uint32', ALIGNMENT],
    [`${arch}.context_length`, 'uint32', shape.context],
    [`${arch}.embedding_length`, 'uint32', shape.hidden],
    [`${arch}.block_count`, 'uint32', shape.blocks],
    [`${arch}.feed_forward_length`, 'uint32', shape.ffn],
    [`${arch}.attention.head_count`, 'uint32', shape.heads],
    [`${arch}.attention.head_count_kv`, 'uint32', shape.kvHeads],
    [`${arch}.attention.layer_norm_rms_epsilon`, 'float32', 1e-6],
    [`${arch}.rope.freq_base`, 'float32', 1000000],
    ['tokenizer.ggml.model', 'string', 'gpt2'],
    ['tokenizer.ggml.pre', 'string', 'qwen2'],
    ['tokenizer.ggml.tokens', 'string', vocabulary.tokens],
    ['tokenizer.ggml.token_type', 'int32', vocabulary.types],
    ['tokenizer.ggml.merges', 'string', vocabulary.merges],
    ['tokenizer.ggml.bos_token_id', 'uint32', endOfText],
    ['tokenizer.ggml.eos_token_id', 'uint32', vocabulary.tokens.indexOf('<|im_end|>')],
    ['tokenizer.ggml.padding_token_id', 'uint32', endOfText],
    ['tokenizer.ggml.add_bos_token', 'bool', false],
    ['tokenizer.chat_template', 'string', CHATML_TEMPLATE],
  ];
  header.scalar('u64', metadata.length);
  for (const [key, type, value] of metadata) writeMetadata(header, key, type, value);

  let offset = 0;
  for (const tensor of tensors) {
    header.string(tensor.name);
    header.scalar('u32', tensor.dims.length);
    for (const dim of tensor.dims) header.scalar('u64', dim);
    header.scalar('u32', GGML_TYPE[tensor.type]);
    header.scalar('u64', offset);
    offset = align(offset + tensorBytes(tensor.type, tensor.dims.reduce((a, b) => a * b, 1)));
  }
  header.push(new Uint8Array(align(header.length) - header.length));
  yield header.concat();

  const random = prng(options.seed ?? 1);
  for (const tensor of tensors) {
    const data = tensorData(tensor.type, tensor.dims.reduce((a, b) => a * b, 1), random, tensor.fill);
    if (tensor.name === 'token_embd.weight' && options.prefer?.length) preferTokens(data, tensor.type, shape.hidden, vocabulary.tokens, options.prefer);
    yield data;
    if (align(data.byteLength) > data.byteLength) yield new Uint8Array(align(data.byteLength) - data.byteLength);
  }
}

/** The whole file in memory (small shapes). */
export function ggufBytes(options = {}) {
  const out = new Bytes();
  for (const chunk of ggufChunks(options)) out.push(chunk);
  return out.concat();
}

/** Writes the file to `path` chunk by chunk; resolves to its size in bytes. */
export async function writeGguf(path, options = {}) {
  const stream = createWriteStream(path);
  let size = 0;
  for (const chunk of ggufChunks(options)) {
    size += chunk.byteLength;
    if (!stream.write(chunk)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  return size;
}

function main(argv) {
  const arg = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const out = arg('--out');
  if (!out) {
    console.error(`usage: node scripts/gguf.mjs --shape ${Object.keys(SHAPES).join('|')} --out file.gguf [--seed n] [--arch name]`);
    process.exit(2);
  }
  const started = Date.now();
  writeGguf(out, { shape: arg('--shape') ?? 'tiny', seed: Number(arg('--seed') ?? 1), architecture: arg('--arch') }).then((size) =>
    console.log(`${out}: ${size} bytes in ${Date.now() - started} ms`),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
