/**
 * A minimal protocol buffers wire-format reader: enough to walk aapt2's XmlNode and ResourceTable
 * messages (an .aab's manifest and resources.pb) without generated code or a schema compiler.
 * Messages decode lazily: a field of message type stays a slice of the input until it is asked for.
 */

/** One field occurrence: a varint (as bigint, to keep 64-bit values exact), or raw bytes. */
export type ProtoValue =
  | { wire: 0; varint: bigint }
  | { wire: 1; bytes: Buffer } // 64-bit fixed
  | { wire: 2; bytes: Buffer } // length-delimited: bytes, string, nested message, packed repeated
  | { wire: 5; bytes: Buffer }; // 32-bit fixed

export class ProtoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtoError';
  }
}

/** A decoded message: its fields by number, each in the order it occurred. */
export class ProtoMessage {
  readonly fields: Map<number, ProtoValue[]>;

  private constructor(fields: Map<number, ProtoValue[]>) {
    this.fields = fields;
  }

  /** Decodes one message; throws ProtoError on malformed input (never reads out of bounds). */
  static decode(buf: Buffer): ProtoMessage {
    const fields = new Map<number, ProtoValue[]>();
    let pos = 0;
    const varint = (): bigint => {
      let result = 0n;
      let shift = 0n;
      for (let i = 0; i < 10; i++) {
        if (pos >= buf.length) throw new ProtoError('truncated varint');
        const byte = buf[pos++]!;
        result |= BigInt(byte & 0x7f) << shift;
        if ((byte & 0x80) === 0) return result;
        shift += 7n;
      }
      throw new ProtoError('varint longer than 10 bytes');
    };
    const take = (n: number): Buffer => {
      if (n < 0 || pos + n > buf.length) throw new ProtoError('a field runs past the end of the message');
      const slice = buf.subarray(pos, pos + n);
      pos += n;
      return slice;
    };
    while (pos < buf.length) {
      const key = varint();
      const field = Number(key >> 3n);
      const wire = Number(key & 7n);
      if (field === 0) throw new ProtoError('field number 0');
      let value: ProtoValue;
      switch (wire) {
        case 0:
          value = { wire: 0, varint: varint() };
          break;
        case 1:
          value = { wire: 1, bytes: take(8) };
          break;
        case 2: {
          const length = varint();
          if (length > BigInt(buf.length)) throw new ProtoError('a field runs past the end of the message');
          value = { wire: 2, bytes: take(Number(length)) };
          break;
        }
        case 5:
          value = { wire: 5, bytes: take(4) };
          break;
        default:
          // groups (3, 4) are not used by proto3 schemas; anything else is not protobuf
          throw new ProtoError(`unsupported wire type ${wire}`);
      }
      const list = fields.get(field);
      if (list) list.push(value);
      else fields.set(field, [value]);
    }
    return new ProtoMessage(fields);
  }

  has(field: number): boolean {
    return this.fields.has(field);
  }

  /** The last occurrence of a field (proto3: the last one wins). */
  private last(field: number): ProtoValue | undefined {
    const list = this.fields.get(field);
    return list?.[list.length - 1];
  }

  /** An unsigned varint field as a number (uint32, enum, bool); `fallback` when absent. */
  uint(field: number, fallback = 0): number {
    const v = this.last(field);
    if (!v || v.wire !== 0) return fallback;
    return Number(v.varint & 0xffffffffn);
  }

  /** An int32 varint field (negative values are sign-extended to 64 bits on the wire). */
  int32(field: number, fallback = 0): number {
    const v = this.last(field);
    if (!v || v.wire !== 0) return fallback;
    return Number(BigInt.asIntN(32, v.varint));
  }

  bool(field: number): boolean {
    return this.uint(field) !== 0;
  }

  /** A float (fixed32) field. */
  float(field: number, fallback = 0): number {
    const v = this.last(field);
    if (!v || v.wire !== 5) return fallback;
    return v.bytes.readFloatLE(0);
  }

  string(field: number, fallback = ''): string {
    const v = this.last(field);
    if (!v || v.wire !== 2) return fallback;
    return v.bytes.toString('utf8');
  }

  bytes(field: number): Buffer | null {
    const v = this.last(field);
    return v && v.wire === 2 ? v.bytes : null;
  }

  /** A nested message field, or null when absent. */
  message(field: number): ProtoMessage | null {
    const bytes = this.bytes(field);
    return bytes ? ProtoMessage.decode(bytes) : null;
  }

  /** Every occurrence of a repeated message field, decoded on demand. */
  *messages(field: number): Generator<ProtoMessage> {
    for (const v of this.fields.get(field) ?? []) {
      if (v.wire === 2) yield ProtoMessage.decode(v.bytes);
    }
  }
}
