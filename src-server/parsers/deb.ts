/** Reader of .deb (Debian package): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const debReader: BinaryReader = {
  format: 'deb',
  extensions: ['.deb'],
  async read() {
    throw new ParseError('.deb (Debian package) files cannot be read yet');
  },
};
