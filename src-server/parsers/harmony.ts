/** Readers of HarmonyOS .hap modules and .app bundles: not written yet. */
import { ParseError, type BinaryReader } from './types.ts';

export const hapReader: BinaryReader = {
  format: 'hap',
  extensions: ['.hap'],
  async read() {
    throw new ParseError('.hap (HarmonyOS) files cannot be read yet');
  },
};

export const harmonyAppReader: BinaryReader = {
  format: 'harmony-app',
  extensions: ['.app'],
  async read() {
    throw new ParseError('.app (HarmonyOS) files cannot be read yet');
  },
};
