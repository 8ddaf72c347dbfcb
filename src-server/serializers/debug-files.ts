/**
 * Debug file bodies (spec: DebugFile, R15). The shapes differ in three places:
 * - `device_type`: base lowercase (`ios`), extended in display case (`iOS`, `Android`; R9);
 * - `file_url`: base only;
 * - each metadata entry: base as Zealot stores it (`type` is the architecture or "proguard",
 *   `object` the binary or package name, `data` the rest); extended as Zealot's console shows it
 *   (`category`, `bundle_id`, `name`, `extension`; Proguard entries also carry `files`).
 */
import type { DebugFileMetadatum, DebugFileView } from '../domain/debug-files.ts';
import { PLATFORM_NAMES } from '../domain/releases.ts';
import type { Urls } from '../network/urls.ts';
import type { Shape } from './shapes.ts';

interface MetadataData {
  /** dSYM: whether the slice is of the app's own binary (not an extension or framework) */
  main?: boolean;
  /** dSYM: the bundle id of the binary */
  identifier?: string | null;
  /** Proguard: the archive's files */
  files?: { name: string; size: number }[];
}

function metadatumBody(m: DebugFileMetadatum, shape: Shape) {
  const data = JSON.parse(m.data) as MetadataData;
  if (shape.baseFields) {
    return {
      id: m.id,
      debug_file_id: m.debugFileId,
      uuid: m.uuid,
      type: m.type,
      object: m.object,
      data,
      size: m.size,
      created_at: shape.timestamp(m.createdAt),
      updated_at: shape.timestamp(m.updatedAt),
    };
  }
  const proguard = m.type === 'proguard';
  return {
    id: m.id,
    category: proguard ? ('Proguard' as const) : ('dSYM' as const),
    uuid: m.uuid,
    bundle_id: proguard ? m.object : (data.identifier ?? null),
    name: m.object,
    extension: !proguard && data.main === false,
    size: m.size,
    ...(proguard && { files: data.files ?? [] }),
    created_at: shape.timestamp(m.createdAt),
  };
}

export function debugFileBody({ file, metadata, appName }: DebugFileView, shape: Shape, urls: Urls) {
  return {
    id: file.id,
    app_name: appName,
    device_type: shape.extendedFields ? PLATFORM_NAMES[file.deviceType] : file.deviceType,
    release_version: file.releaseVersion,
    build_version: file.buildVersion,
    ...(shape.baseFields && { file_url: urls.debugFile(file.id) }),
    metadata: metadata.map((m) => metadatumBody(m, shape)),
  };
}
