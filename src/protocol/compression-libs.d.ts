/** Type declarations for the pure-JS compression packages used by compression.ts (they ship none). */
declare module 'snappyjs' {
  export function compress(input: Buffer): Buffer;
  export function uncompress(input: Buffer, maxLength?: number): Buffer;
}

declare module 'lz4js' {
  export function compress(input: Uint8Array, maxSize?: number): Uint8Array;
  export function decompress(input: Uint8Array, maxSize?: number): Uint8Array;
}
