import { said, SaidError, type Said } from '../i18n/said';
/**
 * Reads a GGUF file's header (metadata and tensor infos) so that a file which is not GGUF,
 * is cut short, or names an architecture the runtime lacks gets a plain message before
 * llama.cpp sees it: llama.cpp reports some of these only in its log, and a few abort it.
 */

export type GgufValue = string | number | bigint | boolean | GgufValue[];

export interface GgufTensorInfo {
  name: string;
  /** Innermost dimension first, as ggml orders them. */
  dims: number[];
  /** ggml's type id. */
  type: number;
  /** From the start of the data section. */
  offset: number;
}

export interface GgufHeader {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Where the data section starts in the file. */
  dataOffset: number;
  /**
   * The size the file must have at least to hold every tensor whose type's size is known
   * here; null when a tensor's type is not one of those.
   */
  expectedSize: number | null;
}

/** What is wrong with a file; `reason` lets a caller word it. */
export class GgufError extends SaidError {
  constructor(
    readonly reason: 'not-gguf' | 'version' | 'truncated' | 'invalid',
    message: Said,
  ) {
    super(message);
    this.name = 'GgufError';
  }
}

/** The header ran past the bytes given: read more of the file and try again. */
export class NeedMoreBytes extends Error {}

// Block size in elements and bytes per block of ggml's types (ggml.h, ggml.c type_traits).
const TYPE_SIZES: Record<number, [number, number]> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  30: [1, 2], // BF16
};

/** Bytes of a tensor, or null for a type not in the table above. */
export function tensorByteSize(type: number, dims: number[]): number | null {
  const size = TYPE_SIZES[type];
  if (!size) return null;
  return (dims.reduce((a, b) => a * b, 1) / size[0]) * size[1];
}

/**
 * Parses the header from the first bytes of a file of `fileSize` bytes. Throws GgufError for a
 * file that is not one, NeedMoreBytes when `bytes` ends inside the header and the file is
 * longer, and GgufError('truncated') when the file itself ends inside it.
 */
export function readGgufHeader(bytes: Uint8Array, fileSize = bytes.byteLength): GgufHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  let at = 0;
  const need = (n: number) => {
    if (at + n <= bytes.byteLength) return;
    if (bytes.byteLength < fileSize) throw new NeedMoreBytes();
    throw new GgufError('truncated', said('chat_gguf_header_cut', { bytes: fileSize }));
  };
  const u32 = () => (need(4), (at += 4), view.getUint32(at - 4, true));
  const u64 = () => {
    need(8);
    at += 8;
    const value = view.getBigUint64(at - 8, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufError('invalid', said('chat_gguf_count'));
    return Number(value);
  };
  const string = () => {
    const length = u64();
    need(length);
    at += length;
    return decoder.decode(bytes.subarray(at - length, at));
  };
  const scalar = (type: number): GgufValue => {
    const sizes: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
    if (type === 8) return string();
    if (type === 9) {
      const itemType = u32();
      const count = u64();
      const items: GgufValue[] = [];
      for (let i = 0; i < count; i++) items.push(scalar(itemType));
      return items;
    }
    const size = sizes[type];
    if (!size) throw new GgufError('invalid', said('chat_gguf_type', { type }));
    need(size);
    at += size;
    const p = at - size;
    switch (type) {
      case 0: return view.getUint8(p);
      case 1: return view.getInt8(p);
      case 2: return view.getUint16(p, true);
      case 3: return view.getInt16(p, true);
      case 4: return view.getUint32(p, true);
      case 5: return view.getInt32(p, true);
      case 6: return view.getFloat32(p, true);
      case 7: return view.getUint8(p) !== 0;
      case 10: return view.getBigUint64(p, true);
      case 11: return view.getBigInt64(p, true);
      default: return view.getFloat64(p, true);
    }
  };

  if (fileSize < 4 || decoder.decode(bytes.subarray(0, 4)) !== 'GGUF') {
    throw new GgufError('not-gguf', said('chat_gguf_not'));
  }
  at = 4;
  const version = u32();
  if (version < 2 || version > 3) throw new GgufError('version', said('chat_gguf_version', { version }));
  const tensorCount = u64();
  const metadataCount = u64();
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < metadataCount; i++) {
    const key = string();
    metadata.set(key, scalar(u32()));
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = string();
    const dims = Array.from({ length: u32() }, () => u64());
    tensors.push({ name, dims, type: u32(), offset: u64() });
  }
  const alignment = Number(metadata.get('general.alignment') ?? 32);
  const dataOffset = Math.ceil(at / alignment) * alignment;
  let expectedSize: number | null = dataOffset;
  for (const tensor of tensors) {
    const size = tensorByteSize(tensor.type, tensor.dims);
    if (size === null) {
      expectedSize = null;
      break;
    }
    expectedSize = Math.max(expectedSize, dataOffset + tensor.offset + size);
  }
  return { version, metadata, tensors, alignment, dataOffset, expectedSize };
}

/** Reads the header of a file held as a Blob, reading more of it until the header fits. */
export async function readGgufBlobHeader(blob: Blob): Promise<GgufHeader> {
  for (let length = 1 << 20; ; length *= 4) {
    const bytes = new Uint8Array(await blob.slice(0, length).arrayBuffer());
    try {
      return readGgufHeader(bytes, blob.size);
    } catch (error) {
      if (!(error instanceof NeedMoreBytes)) throw error;
    }
  }
}

/**
 * The header's plain complaint about a whole file, if any: shorter than its tensors need.
 * (An unknown architecture is the runtime's to judge.)
 */
export function truncation(header: GgufHeader, fileSize: number): Said | null {
  if (header.expectedSize === null || fileSize >= header.expectedSize) return null;
  return said('chat_gguf_cut', { need: header.expectedSize, has: fileSize });
}
