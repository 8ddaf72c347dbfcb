/** Reader of .AppImage (Linux): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const appImageReader: BinaryReader = {
  format: 'appimage',
  extensions: ['.appimage'],
  async read() {
    throw new ParseError('.AppImage (Linux) files cannot be read yet');
  },
};
