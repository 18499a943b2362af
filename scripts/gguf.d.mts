export type TensorType = 'f32' | 'f16' | 'q8_0';

/** A model's dimensions, as llama.cpp's metadata keys name them. */
export interface GgufShape {
  architecture: string;
  hidden: number;
  blocks: number;
  heads: number;
  kvHeads: number;
  ffn: number;
  /** Ordinary tokens (the three special ones come on top). */
  vocab: number;
  context: number;
  /** The type of the weight matrices; norms and biases are f32. */
  type: TensorType;
}

export interface GgufOptions {
  /** A name from SHAPES ('tiny' when left out) or dimensions of your own. */
  shape?: keyof typeof SHAPES | GgufShape;
  /** Overrides the shape's architecture: an unknown one makes a file runtimes must refuse. */
  architecture?: string;
  /** Picks the random weights (1 when left out). */
  seed?: number;
  /**
   * Tokens the model then prefers over all others, the first most (f32 files): a model of random
   * weights whose choices a test can know, e.g. ['"', 'r'] closes every JSON string it may and
   * picks a name starting with r.
   */
  prefer?: string[];
  /** `general.name`. */
  name?: string;
}

export declare const GGML_TYPE: { readonly f32: 0; readonly f16: 1; readonly q8_0: 8 };
export declare const ALIGNMENT: number;
export declare const CHATML_TEMPLATE: string;
export declare const SPECIAL_TOKENS: string[];
export declare const SHAPES: { tiny: GgufShape; 'qwen2.5-0.5b': GgufShape };

export declare function prng(seed: number): () => number;
export declare function byteChars(): string[];
export declare function bpeVocabulary(size: number): { tokens: string[]; types: number[]; merges: string[] };
export declare function toHalf(value: number): number;
export declare function tensorBytes(type: TensorType, count: number): number;
export declare function ggufChunks(options?: GgufOptions): Generator<Uint8Array>;
export declare function ggufBytes(options?: GgufOptions): Uint8Array;
export declare function writeGguf(path: string, options?: GgufOptions): Promise<number>;
