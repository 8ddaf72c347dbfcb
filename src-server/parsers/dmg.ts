/** Reader of .dmg (macOS disk image): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const dmgReader: BinaryReader = {
  format: 'dmg',
  extensions: ['.dmg'],
  async read() {
    throw new ParseError('.dmg (macOS disk image) files cannot be read yet');
  },
};
