/**
 * A QR code drawn as SVG in the page (the `qrcode` package computes the modules): sharp at any size,
 * always dark on light with its quiet zone, as scanners need, whatever the console's appearance.
 */
import { create } from 'qrcode';
import { useMemo } from 'react';

/** Light modules around the code that scanners need to find it (the standard asks for four). */
const QUIET_ZONE = 4;

function modulesPath(value: string): { path: string; size: number } {
  const { modules } = create(value, { errorCorrectionLevel: 'M' });
  let path = '';
  for (let row = 0; row < modules.size; row += 1) {
    for (let col = 0; col < modules.size; col += 1) {
      if (modules.get(row, col)) path += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
    }
  }
  return { path, size: modules.size + 2 * QUIET_ZONE };
}

export function QrCode({ value, label, className }: { value: string; label: string; className?: string }) {
  const { path, size } = useMemo(() => modulesPath(value), [value]);
  return (
    <svg className={className ? `qr ${className}` : 'qr'} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
