/** Reader of .aab (Android App Bundle): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const aabReader: BinaryReader = {
  format: 'aab',
  extensions: ['.aab'],
  async read() {
    throw new ParseError('.aab (Android App Bundle) files cannot be read yet');
  },
};
