import { tellInEnglish } from '../../src/lib/i18n/said';
import { describe, expect, it } from 'vitest';
import { ALIGNMENT, GGML_TYPE, SHAPES, SPECIAL_TOKENS, byteChars, ggufBytes, ggufChunks, toHalf } from '../../scripts/gguf.mjs';
import { GgufError, readGgufHeader, truncation, type GgufHeader } from '../../src/lib/local-model/gguf';

// The writer (scripts/gguf.mjs) checked by reading its files back with the app's own reader
// (src/lib/local-model/gguf.ts), and the reader's refusals of what is not a whole GGUF file.
// That llama.cpp loads and runs these files is tests/e2e/local-model.spec.ts's job.

const tiny = ggufBytes({ shape: 'tiny' });
const header = readGgufHeader(tiny);
const meta = (key: string) => header.metadata.get(key);

function tensor(h: GgufHeader, name: string) {
  const found = h.tensors.find((t) => t.name === name);
  if (!found) throw new Error(`no tensor ${name}`);
  return found;
}

describe('the GGUF writer', () => {
  it('writes a small qwen2 file of version 3 with the keys llama.cpp needs', () => {
    expect(tiny.byteLength).toBeLessThan(1_000_000);
    expect(header.version).toBe(3);
    expect(meta('general.architecture')).toBe('qwen2');
    for (const key of [
      'context_length',
      'embedding_length',
      'block_count',
      'feed_forward_length',
      'attention.head_count',
      'attention.head_count_kv',
      'attention.layer_norm_rms_epsilon',
    ]) {
      expect(meta(`qwen2.${key}`), key).toBeDefined();
    }
    expect(meta('qwen2.embedding_length')).toBe(SHAPES.tiny.hidden);
    expect(meta('qwen2.attention.head_count')).toBe(4);
    expect(meta('qwen2.attention.head_count_kv')).toBe(2);
    expect(meta('general.alignment')).toBe(ALIGNMENT);
  });

  it('has a byte-level BPE tokenizer whose every merge makes a token, and ChatML special tokens', () => {
    expect(meta('tokenizer.ggml.model')).toBe('gpt2');
    const tokens = meta('tokenizer.ggml.tokens') as string[];
    const types = meta('tokenizer.ggml.token_type') as number[];
    const merges = meta('tokenizer.ggml.merges') as string[];
    expect(types).toHaveLength(tokens.length);
    expect(new Set(tokens).size).toBe(tokens.length);
    // Every byte has its token: llama.cpp falls back to them for text no merge covers.
    for (const char of byteChars()) expect(tokens).toContain(char);
    expect(merges.length).toBeGreaterThan(20);
    for (const merge of merges) {
      const [left, right, ...rest] = merge.split(' ');
      expect(rest).toEqual([]);
      expect(tokens).toContain(left);
      expect(tokens).toContain(right);
      expect(tokens).toContain(left + right);
    }
    for (const special of SPECIAL_TOKENS) expect(types[tokens.indexOf(special)], special).toBe(3);
    // Bytes 0x80-0xFF are unused tokens (never rendered), so what the model writes is ASCII.
    const chars = byteChars();
    tokens.forEach((token, id) => {
      const unused = id >= 0x80 && id < 0x100;
      expect(types[id], token).toBe(unused ? 5 : types[id] === 3 ? 3 : 1);
      if (types[id] === 1) for (const char of token) expect(chars.indexOf(char), token).toBeLessThan(0x80);
    });
    expect(tokens[meta('tokenizer.ggml.eos_token_id') as number]).toBe('<|im_end|>');
    expect(tokens[meta('tokenizer.ggml.bos_token_id') as number]).toBe('<|endoftext|>');
    const template = meta('tokenizer.chat_template') as string;
    expect(template).toContain('<|im_start|>');
    expect(template).toContain('<|im_end|>');
    expect(template).toContain('add_generation_prompt');
  });

  it('lays out the tensors aligned, one after another, ending with the file', () => {
    expect(header.dataOffset % ALIGNMENT).toBe(0);
    const blocks = SHAPES.tiny.blocks;
    // Nine weights and three biases per block, the embedding, and the last norm (the output is tied to the embedding).
    expect(header.tensors).toHaveLength(blocks * 12 + 2);
    let end = 0;
    for (const t of header.tensors) {
      expect(t.offset % ALIGNMENT, t.name).toBe(0);
      expect(t.offset, t.name).toBeGreaterThanOrEqual(end);
      end = t.offset + t.dims.reduce((a, b) => a * b, 1) * 4;
    }
    expect(header.expectedSize).toBe(header.dataOffset + end);
    expect(tiny.byteLength).toBe(Math.ceil(header.expectedSize! / ALIGNMENT) * ALIGNMENT);
    expect(tensor(header, 'token_embd.weight').dims).toEqual([64, (meta('tokenizer.ggml.tokens') as string[]).length]);
    expect(tensor(header, 'blk.1.attn_k.weight').dims).toEqual([64, 32]);
    expect(tensor(header, 'blk.0.ffn_down.weight').dims).toEqual([128, 64]);
  });

  it('writes norms of ones and small random weights', () => {
    const view = new DataView(tiny.buffer, tiny.byteOffset);
    const norm = tensor(header, 'blk.0.attn_norm.weight');
    for (let i = 0; i < 64; i++) expect(view.getFloat32(header.dataOffset + norm.offset + i * 4, true)).toBe(1);
    const q = tensor(header, 'blk.0.attn_q.weight');
    const values = Array.from({ length: 64 * 64 }, (_, i) => view.getFloat32(header.dataOffset + q.offset + i * 4, true));
    expect(Math.max(...values.map(Math.abs))).toBeLessThanOrEqual(0.035);
    expect(new Set(values).size).toBeGreaterThan(4000);
  });

  it('is reproducible from its seed', () => {
    expect(Buffer.from(ggufBytes({ shape: 'tiny' })).equals(Buffer.from(tiny))).toBe(true);
    const other = ggufBytes({ shape: 'tiny', seed: 2 });
    expect(other.byteLength).toBe(tiny.byteLength);
    expect(Buffer.from(other.subarray(0, header.dataOffset)).equals(Buffer.from(tiny.subarray(0, header.dataOffset)))).toBe(true);
    expect(Buffer.from(other).equals(Buffer.from(tiny))).toBe(false);
  });

  it('writes q8_0 blocks of 34 bytes with a half-precision scale', () => {
    const file = ggufBytes({ shape: { ...SHAPES.tiny, type: 'q8_0' } });
    const h = readGgufHeader(file);
    const q = tensor(h, 'blk.0.attn_q.weight');
    expect(q.type).toBe(GGML_TYPE.q8_0);
    expect(h.expectedSize).toBeLessThanOrEqual(file.byteLength);
    const next = tensor(h, 'blk.0.attn_k.weight');
    expect(next.offset - q.offset).toBe(Math.ceil(((64 * 64) / 32) * 34 / ALIGNMENT) * ALIGNMENT);
    const view = new DataView(file.buffer, file.byteOffset);
    expect(view.getUint16(h.dataOffset + q.offset, true)).toBe(toHalf(0.035 / 127));
  });

  it("has Qwen2.5-0.5B's dimensions in its bench shape (header only: the weights are 390 MiB)", () => {
    const first = ggufChunks({ shape: 'qwen2.5-0.5b' }).next().value!;
    const h = readGgufHeader(first, 1e12);
    expect(h.metadata.get('qwen2.embedding_length')).toBe(896);
    expect(h.metadata.get('qwen2.block_count')).toBe(24);
    expect(h.metadata.get('qwen2.attention.head_count')).toBe(14);
    expect(h.metadata.get('qwen2.attention.head_count_kv')).toBe(2);
    expect(h.metadata.get('qwen2.feed_forward_length')).toBe(4864);
    expect((h.metadata.get('tokenizer.ggml.tokens') as string[]).length).toBe(32768 + 3);
    expect(tensor(h, 'blk.23.ffn_up.weight').type).toBe(GGML_TYPE.q8_0);
    expect(h.expectedSize! / 2 ** 20).toBeGreaterThan(380);
    expect(h.expectedSize! / 2 ** 20).toBeLessThan(400);
  });

  it('converts to half precision as IEEE does', () => {
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(65504)).toBe(0x7bff);
    expect(toHalf(1e6)).toBe(0x7c00);
    expect(toHalf(2 ** -14)).toBe(0x0400);
    expect(toHalf(2 ** -24)).toBe(0x0001);
    expect(toHalf(0)).toBe(0);
  });

  it('writes an unknown architecture when asked (for the runtime to refuse)', () => {
    const h = readGgufHeader(ggufBytes({ architecture: 'nosuch' }));
    expect(h.metadata.get('general.architecture')).toBe('nosuch');
    expect(h.metadata.get('nosuch.block_count')).toBe(2);
  });
});

describe('the GGUF reader', () => {
  const refusal = (bytes: Uint8Array, size?: number) => {
    try {
      readGgufHeader(bytes, size);
    } catch (error) {
      expect(error).toBeInstanceOf(GgufError);
      return error as GgufError;
    }
    throw new Error('read without complaint');
  };

  it('refuses a file that is not GGUF', () => {
    expect(refusal(new TextEncoder().encode('PK\u0003\u0004 a zip file')).reason).toBe('not-gguf');
    expect(refusal(new Uint8Array(0)).reason).toBe('not-gguf');
  });

  it('refuses a version it does not read', () => {
    const bytes = tiny.slice();
    new DataView(bytes.buffer).setUint32(4, 7, true);
    expect(refusal(bytes).message).toContain('version 7');
  });

  it('says a file cut inside its header is cut short', () => {
    const error = refusal(tiny.subarray(0, 5000));
    expect(error.reason).toBe('truncated');
    expect(error.message).toContain('cut short');
  });

  it('says a file cut inside its data is cut short, and a whole one is not', () => {
    const cut = tiny.subarray(0, tiny.byteLength - 1000);
    expect(tellInEnglish(truncation(readGgufHeader(cut), cut.byteLength)!)).toContain('cut short');
    expect(truncation(header, tiny.byteLength)).toBeNull();
  });
});
