/** Reader of .rpm (RPM package): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const rpmReader: BinaryReader = {
  format: 'rpm',
  extensions: ['.rpm'],
  async read() {
    throw new ParseError('.rpm (RPM package) files cannot be read yet');
  },
};
