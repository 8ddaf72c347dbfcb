// The squashfs 4.0 reader behind the AppImage reader, against images made by mksquashfs
// (squashfs-tools) with several compressors and options: multi-block files with tail fragments,
// incompressible and sparse blocks, hard links (extended inodes), large directories, symlinks.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFile } from '../../src-server/parsers/binfile.ts';
import { Squashfs } from '../../src-server/parsers/squashfs.ts';
import { run, toolMissing } from '../helpers/tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'hangar-squashfs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const source = join(dir, 'tree');

const files = new Map<string, Buffer>();

const noMksquashfs = toolMissing('mksquashfs', 'squashfs-tools');

describe.skipIf(noMksquashfs !== null)('squashfs images made by mksquashfs', () => {
  beforeAll(() => {
    mkdirSync(join(source, 'many'), { recursive: true });
    const text = Buffer.from('All work and no play makes Jack a dull boy.\n'.repeat(7000)); // ~300 KB: blocks + a tail
    const sparse = Buffer.alloc(1024 * 1024 + 5);
    sparse.write('end', sparse.length - 3);
    files.set('text.txt', text);
    files.set('random.bin', randomBytes(200_000)); // incompressible: stored blocks
    files.set('sparse.bin', sparse);
    files.set('small.txt', Buffer.from('hi\n'));
    files.set('empty.txt', Buffer.alloc(0));
    for (const [name, data] of files) writeFileSync(join(source, name), data);
    linkSync(join(source, 'text.txt'), join(source, 'hard.txt')); // a hard link: extended file inodes
    for (let i = 0; i < 600; i++) writeFileSync(join(source, 'many', `f${String(i).padStart(3, '0')}`), `file ${i}\n`);
    symlinkSync('b', join(source, 'a'));
    symlinkSync('small.txt', join(source, 'b'));
    symlinkSync('many', join(source, 'd'));
    symlinkSync('../small.txt', join(source, 'many', 'up'));
    symlinkSync('loop2', join(source, 'loop1'));
    symlinkSync('loop1', join(source, 'loop2'));
    symlinkSync('/etc/passwd', join(source, 'absolute'));
    // Over the 32 MiB read cap, but sparse, so the image stays small.
    writeFileSync(join(source, 'huge.bin'), Buffer.alloc(0));
    run('truncate', ['-s', String(33 * 1024 * 1024), join(source, 'huge.bin')]);
  });

  const variants: Array<[string, string[]]> = [
    ['gzip', ['-comp', 'gzip']],
    ['xz', ['-comp', 'xz']],
    ['xz with the x86 BCJ filter', ['-comp', 'xz', '-Xbcj', 'x86']],
    ['zstd', ['-comp', 'zstd']],
    ['uncompressed, 4 KiB blocks', ['-noI', '-noD', '-noF', '-noX', '-b', '4096']],
    ['gzip without fragments', ['-comp', 'gzip', '-no-fragments']],
  ];

  it.each(variants)('reads files, directories and symlinks (%s)', async (label, options) => {
    const image = join(dir, `${label.replace(/\W+/g, '-')}.squashfs`);
    run('mksquashfs', [source, image, '-noappend', '-quiet', '-no-progress', '-all-root', ...options]);
    // Put the image after 1000 bytes of something else, as an AppImage does.
    const shifted = join(dir, `${label.replace(/\W+/g, '-')}.bin`);
    writeFileSync(shifted, Buffer.concat([Buffer.alloc(1000, 7), readFileSync(image)]));
    await withFile(shifted, 'an .AppImage', async (file) => {
      const fs = await Squashfs.open(file, 1000);
      const root = await fs.list(await fs.root());
      expect(root.map((e) => e.name).sort()).toEqual(
        ['a', 'absolute', 'b', 'd', 'empty.txt', 'hard.txt', 'huge.bin', 'loop1', 'loop2', 'many', 'random.bin', 'small.txt', 'sparse.bin', 'text.txt'].sort(),
      );
      for (const [name, data] of files) {
        const inode = await fs.lookup(name);
        expect(inode?.kind, name).toBe('file');
        expect((await fs.readFile(inode!)).equals(data), name).toBe(true);
      }
      expect((await fs.readFile((await fs.lookup('hard.txt'))!)).equals(files.get('text.txt')!)).toBe(true);
      const many = await fs.list((await fs.lookup('many'))!);
      expect(many).toHaveLength(601);
      expect((await fs.readFile((await fs.lookup('d/f599'))!)).toString()).toBe('file 599\n');
      expect((await fs.readFile((await fs.lookup('a'))!)).toString()).toBe('hi\n');
      expect((await fs.readFile((await fs.lookup('d/up'))!)).toString()).toBe('hi\n');
      expect((await fs.readFile((await fs.lookup('many/../many/./f000'))!)).toString()).toBe('file 0\n');
      expect(await fs.lookup('absolute')).toBeNull();
      expect(await fs.lookup('nope/x')).toBeNull();
      expect(await fs.lookup('../small.txt')).toBeNull();
      await expect(fs.lookup('loop1')).rejects.toThrow('the squashfs image has a symlink loop');
      const huge = await fs.lookup('huge.bin');
      expect(huge?.fileSize).toBe(33 * 1024 * 1024);
      await expect(fs.readFile(huge!)).rejects.toThrow(/too large to read/);
      await expect(fs.readFile((await fs.lookup('text.txt'))!, 1000)).rejects.toThrow(/too large to read/);
    });
  });

  it('refuses a damaged metadata block', async () => {
    const image = join(dir, 'damaged.squashfs');
    run('mksquashfs', [source, image, '-noappend', '-quiet', '-no-progress', '-all-root', '-comp', 'gzip']);
    const data = Buffer.from(readFileSync(image));
    const inodeTable = Number(data.readBigUInt64LE(64));
    const rootBlock = inodeTable + Number(data.readBigUInt64LE(32) >> 16n);
    data.fill(0xaa, rootBlock + 2, rootBlock + 40); // garble the (compressed) block holding the root inode
    writeFileSync(image, data);
    await withFile(image, 'an .AppImage', async (file) => {
      const fs = await Squashfs.open(file, 0);
      await expect(fs.root()).rejects.toThrow(/squashfs block is damaged|the squashfs image is damaged/);
    });
  });
});
