/** Reader of zipped .app bundles (macOS): not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const macosAppReader: BinaryReader = {
  format: 'macos-app',
  extensions: ['.app.zip', '.zip'],
  async read() {
    throw new ParseError('zipped .app bundles (macOS) files cannot be read yet');
  },
};
