/** Reader of .exe (Windows): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const exeReader: BinaryReader = {
  format: 'exe',
  extensions: ['.exe'],
  async read() {
    throw new ParseError('.exe (Windows) files cannot be read yet');
  },
};
