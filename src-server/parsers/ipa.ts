/** Reader of .ipa (iOS): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const ipaReader: BinaryReader = {
  format: 'ipa',
  extensions: ['.ipa'],
  async read() {
    throw new ParseError('.ipa (iOS) files cannot be read yet');
  },
};
