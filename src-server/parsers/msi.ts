/** Reader of .msi (Windows Installer): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const msiReader: BinaryReader = {
  format: 'msi',
  extensions: ['.msi'],
  async read() {
    throw new ParseError('.msi (Windows Installer) files cannot be read yet');
  },
};
