/** Reader of .apk (Android): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const apkReader: BinaryReader = {
  format: 'apk',
  extensions: ['.apk'],
  async read() {
    throw new ParseError('.apk (Android) files cannot be read yet');
  },
};
